import type { Sql } from "../platform/db/transaction.ts";
import type { SearchIndex } from "../search/search-index.ts";
import { attributeUuidsOfEvents, attributeUuidsOfObjects, correlationDocumentId, loadAttributeDocuments, loadCorrelationDocuments, loadEventDocuments, loadPairDocuments } from "./documents.ts";
import { ensureSearchIndices } from "./prepare.ts";
import { CORRELATION_CREATED, CORRELATION_DELETED, isCorrelationChange } from "../modules/correlations/index.ts";
import { isEventTrashChange } from "../modules/changes/index.ts";
import { pipelined } from "../platform/pipeline.ts";

const BATCH = 2000;

/** Event fields that attribute documents copy (their access fields): a change re-indexes every attribute. */
const FIELDS_COPIED_TO_ATTRIBUTES = new Set(["distribution", "orgId", "orgcId", "sharingGroupId"]);
/** Object fields (wire names) that decide who may read its attributes: a change re-indexes them. */
const OBJECT_ACCESS_FIELDS = new Set(["distribution", "sharing_group_id"]);

interface ChangeRow {
  kind: string;
  entity_type: string;
  entity_uuid: string;
  event_uuid: string | null;
  payload: { fields?: string[]; correlation_id?: number; source_attribute_uuid?: string; target_attribute_uuid?: string; match_type?: string; attribute_uuids?: string[] } | null;
}

interface Touched {
  events: Set<string>;
  attributes: Set<string>;
  wholeEvents: Set<string>;
  /** Objects whose attributes are all re-indexed (their readers changed). */
  wholeObjects: Set<string>;
  /** Attributes whose correlation documents are rewritten from the stored pairs. */
  correlated: Set<string>;
  /** Pairs created (by correlation id): their two documents are written, if the pair is still stored. */
  createdPairs: Set<number>;
  /** Correlation documents of removed pairs (both directions). */
  correlationsGone: Set<string>;
  /** Attributes of purged events (retention): their pairs come as correlation records, so they go by id only. */
  purgedAttributes: Set<string>;
}

export interface IndexedCounts {
  indexed: number;
  deleted: number;
}

/** Which documents a range of change records touches. */
function touched(rows: ChangeRow[]): Touched {
  const events = new Set<string>();
  const attributes = new Set<string>();
  const wholeEvents = new Set<string>();
  const wholeObjects = new Set<string>();
  const correlated = new Set<string>();
  const createdPairs = new Set<number>();
  const correlationsGone = new Set<string>();
  const purgedAttributes = new Set<string>();
  for (const r of rows) {
    if (isCorrelationChange(r.kind)) {
      const { correlation_id: id, source_attribute_uuid: s, target_attribute_uuid: t, match_type: m } = r.payload ?? {};
      // A new pair changes no other document: only its own are written (its attributes' other pairs
      // are as they were). Records written before the id was in the payload rewrite all pairs of both.
      if (r.kind === CORRELATION_CREATED && typeof id === "number") {
        createdPairs.add(id);
        continue;
      }
      if (!s || !t || !m) continue;
      // A removed pair's documents go; the other pairs of its attributes are written again, so that a
      // pair stored again between the same attributes (same document ids) is back whatever the order
      // ranges are indexed in.
      if (r.kind === CORRELATION_DELETED) correlationsGone.add(correlationDocumentId(s, t, m)).add(correlationDocumentId(t, s, m));
      correlated.add(s).add(t);
    } else if (r.entity_type === "event") {
      events.add(r.entity_uuid);
      if (r.kind === "event.deleted") for (const a of r.payload?.attribute_uuids ?? []) purgedAttributes.add(a);
      // An import update carries no field list: its attributes may all have changed access.
      const fields = r.payload?.fields;
      if (r.kind === "event.updated" && (!fields || fields.some((f) => FIELDS_COPIED_TO_ATTRIBUTES.has(f)))) wholeEvents.add(r.entity_uuid);
      // Attribute documents say deleted while their event is (search and hunts leave them out).
      if (isEventTrashChange(r.kind)) wholeEvents.add(r.entity_uuid);
    } else if (r.entity_type === "attribute") {
      attributes.add(r.entity_uuid);
      // A created attribute has no pairs yet: each pair it gets comes with its own change record.
      if (r.kind !== "attribute.created") correlated.add(r.entity_uuid);
      // attribute_count of the event document.
      if (r.event_uuid) events.add(r.event_uuid);
    } else if (r.entity_type === "report" && r.event_uuid) {
      // Reports are fields of their event's document (reports.name, reports.content).
      events.add(r.event_uuid);
    } else if (r.entity_type === "object" && r.event_uuid) {
      events.add(r.event_uuid);
      const fields = r.payload?.fields;
      if (r.kind === "object.updated" && (!fields || fields.some((f) => OBJECT_ACCESS_FIELDS.has(f)))) wholeObjects.add(r.entity_uuid);
    }
  }
  return { events, attributes, wholeEvents, wholeObjects, correlated, createdPairs, correlationsGone, purgedAttributes };
}

/**
 * Brings the search indices up to date with change records `firstId..lastId`: each touched event and
 * attribute is re-read from PostgreSQL and written whole (by uuid), or deleted when its row is gone.
 * Idempotent, and independent of the order ranges are processed in.
 */
export async function indexChangeRange(sql: Sql, search: SearchIndex, firstId: number, lastId: number): Promise<IndexedCounts> {
  await ensureSearchIndices(search);
  const { rows } = await sql.query<ChangeRow>(
    `SELECT kind, entity_type, entity_uuid::text, event_uuid::text, payload FROM change_records WHERE id BETWEEN $1 AND $2`,
    [firstId, lastId],
  );
  const { events, attributes, wholeEvents, wholeObjects, correlated, createdPairs, correlationsGone, purgedAttributes } = touched(rows);
  const reindexWhole = [...(wholeEvents.size ? await attributeUuidsOfEvents(sql, [...wholeEvents]) : []), ...(wholeObjects.size ? await attributeUuidsOfObjects(sql, [...wholeObjects]) : [])];
  for (const uuid of reindexWhole) {
    attributes.add(uuid);
    correlated.add(uuid);
  }
  const counts: IndexedCounts = { indexed: 0, deleted: 0 };
  await syncDocuments(search, "svc-attributes", [...purgedAttributes].filter((u) => !attributes.has(u)), (uuids) => loadAttributeDocuments(sql, uuids), counts);
  const goneAttributes = await syncDocuments(search, "svc-attributes", [...attributes], (uuids) => loadAttributeDocuments(sql, uuids), counts);
  await syncDocuments(search, "svc-events", [...events], (uuids) => loadEventDocuments(sql, uuids), counts);
  await syncCorrelations(sql, search, [...correlated], [...createdPairs], [...correlationsGone], goneAttributes, counts);
  return counts;
}

/**
 * Correlation documents: removed pairs first, then every stored pair of the touched attributes is
 * written again (values, types and event access fields are copied into them). Pairs of a
 * hard-deleted attribute went with it (foreign key cascade): its documents are found by uuid.
 */
async function syncCorrelations(
  sql: Sql,
  search: SearchIndex,
  attributeUuids: string[],
  pairIds: number[],
  goneIds: string[],
  goneAttributes: string[],
  counts: IndexedCounts,
): Promise<void> {
  if (goneIds.length) await search.deleteByIds("svc-correlations", goneIds);
  if (goneAttributes.length) {
    await search.deleteByTerms("svc-correlations", "source_attribute_uuid", goneAttributes);
    await search.deleteByTerms("svc-correlations", "target_attribute_uuid", goneAttributes);
  }
  counts.deleted += goneIds.length;
  for (let i = 0; i < attributeUuids.length; i += BATCH) {
    const docs = await loadCorrelationDocuments(sql, attributeUuids.slice(i, i + BATCH));
    if (docs.length) await search.bulkIndex("svc-correlations", docs);
    counts.indexed += docs.length;
  }
  for (let i = 0; i < pairIds.length; i += BATCH) {
    const docs = await loadPairDocuments(sql, pairIds.slice(i, i + BATCH));
    if (docs.length) await search.bulkIndex("svc-correlations", docs);
    counts.indexed += docs.length;
  }
}

/**
 * Writes the documents of `uuids` batch by batch, reading the next batch from PostgreSQL while the
 * current one is written to the search backend (the two work on different processes).
 */
async function syncDocuments(
  search: SearchIndex,
  index: "svc-events" | "svc-attributes",
  uuids: string[],
  load: (uuids: string[]) => Promise<{ id: string; source: Record<string, unknown> }[]>,
  counts: IndexedCounts,
): Promise<string[]> {
  const goneAll: string[] = [];
  const batches: string[][] = [];
  for (let i = 0; i < uuids.length; i += BATCH) batches.push(uuids.slice(i, i + BATCH));
  await pipelined(batches, load, async (docs, batch) => {
    const found = new Set(docs.map((d) => d.id));
    const gone = batch.filter((u) => !found.has(u));
    if (docs.length) await search.bulkIndex(index, docs);
    if (gone.length) await search.deleteByIds(index, gone);
    counts.indexed += docs.length;
    counts.deleted += gone.length;
    goneAll.push(...gone);
  });
  return goneAll;
}
