/**
 * The files of saved exports, written as text chunks from a walk over every matching document (one
 * page of hits at a time), so that an export of any size is written in the memory of a page:
 *
 * - `json`: a JSON array of the documents (`_source`), as the peer's export.
 * - `csv`: the peer's columns (peer notes 3.20), RFC 4180, cells protected against formula injection
 *   (the Explore export's encoder).
 * - `misp`: one MISP event (`{"Event": ...}`) holding the matching attributes with their objects and
 *   tags, importable again by `POST /events/import`. Object attributes wait for their object at the
 *   end, so a misp export is capped at the import's size (MISP_MAX_ATTRIBUTES).
 * - `stix`: a STIX 2.1 bundle (`./stix/`).
 */
import type { Sql } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import { ChunkBuilder, chunked } from "../../platform/text-chunks.ts";
import type { SearchHit } from "../../search/search-index.ts";
import { loadEventDocuments } from "../../indexing/documents.ts";
import { mispObject, mispTime } from "../events/index.ts";
import { csvHeader, csvRecord } from "../search/index.ts";
import { loadObjects, type ExportFileFormat, type ExportIndexTarget } from "./export-store.ts";
import { StixBundleWriter } from "./stix/index.ts";

/** About the largest MISP event `POST /events/import` takes (its 48 MB body limit). */
export const MISP_MAX_ATTRIBUTES = 100_000;

export const FILE_TYPES: Record<ExportFileFormat, { extension: string; contentType: string }> = {
  json: { extension: "json", contentType: "application/json" },
  csv: { extension: "csv", contentType: "text/csv; charset=utf-8" },
  misp: { extension: "json", contentType: "application/json" },
  stix: { extension: "json", contentType: "application/stix+json;version=2.1" },
};

/**
 * Documents per page of the walk, per format. A STIX document costs about 10 KB of short-lived
 * allocations, so a page of 1,000 stays alive through several young-generation collections and V8
 * moves it to the old generation (65 MB per 100,000 attributes); pages of 200 die young (1.5 MB)
 * for about 9% more time (bench/README, "Exports").
 */
export const WALK_PAGE_SIZE: Record<ExportFileFormat, number> = { json: 1_000, csv: 1_000, misp: 1_000, stix: 200 };

export interface ExportFileSpec {
  format: ExportFileFormat;
  indexTarget: ExportIndexTarget;
  /** misp: the event written. */
  misp?: { uuid: string; info: string; distribution: number };
}

/** Counts the documents written (`records`) as the chunks are taken. */
export interface ExportCounter {
  records: number;
}

export function exportChunks(sql: Sql, spec: ExportFileSpec, pages: AsyncIterable<SearchHit[]>, counter: ExportCounter): AsyncGenerator<string> {
  switch (spec.format) {
    case "json":
      return jsonChunks(pages, counter);
    case "csv":
      return csvChunks(spec.indexTarget, pages, counter);
    case "misp":
      return mispChunks(sql, spec.misp!, pages, counter);
    case "stix":
      return stixChunks(sql, pages, counter);
  }
}

async function* jsonChunks(pages: AsyncIterable<SearchHit[]>, counter: ExportCounter): AsyncGenerator<string> {
  yield "[";
  for await (const hits of pages) {
    yield* chunked(hits, (h) => `${counter.records++ ? "," : ""}\n${JSON.stringify(h.source)}`);
  }
  yield "\n]\n";
}

async function* csvChunks(target: ExportIndexTarget, pages: AsyncIterable<SearchHit[]>, counter: ExportCounter): AsyncGenerator<string> {
  yield csvHeader(target);
  for await (const hits of pages) {
    yield* chunked(hits, (h) => csvRecord(target, h.source));
    counter.records += hits.length;
  }
}

async function* stixChunks(sql: Sql, pages: AsyncIterable<SearchHit[]>, counter: ExportCounter): AsyncGenerator<string> {
  // The event document of an attribute gives its report's creator and markings; it is readable
  // whenever one of its attributes is (the distribution rule), so PostgreSQL's copy is the same.
  const writer = new StixBundleWriter({ loadEvent: async (uuid) => (await loadEventDocuments(sql, [uuid]))[0]?.source ?? null });
  const out = new ChunkBuilder();
  for await (const hits of pages) {
    for (const h of hits) {
      await writer.write(h, out);
      counter.records++;
      if (out.full) yield out.take();
    }
    if (!out.empty) yield out.take();
  }
  yield* writer.end();
}

const text = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v));
const epochTime = (v: unknown): string | null => (typeof v === "number" && Number.isFinite(v) ? mispTime(new Date(v * 1000)) : null);
const tagsOf = (v: unknown): { name: string }[] =>
  Array.isArray(v) ? v.flatMap((t) => (t && typeof t === "object" && typeof (t as { name?: unknown }).name === "string" ? [{ name: (t as { name: string }).name }] : [])) : [];

/** A MISP attribute from an attribute document (the fields MISP import reads). */
function mispAttribute(s: Record<string, unknown>): Record<string, unknown> {
  const tags = tagsOf(s.tags);
  return {
    uuid: text(s.uuid),
    type: text(s.type),
    category: text(s.category),
    value: text(s.value),
    to_ids: s.to_ids === true,
    comment: text(s.comment),
    distribution: text(s.distribution ?? 5),
    timestamp: text(s.timestamp),
    disable_correlation: s.disable_correlation === true,
    first_seen: epochTime(s.first_seen),
    last_seen: epochTime(s.last_seen),
    ...(s.object_relation ? { object_relation: text(s.object_relation) } : {}),
    ...(tags.length ? { Tag: tags } : {}),
  };
}

async function* mispChunks(sql: Sql, event: { uuid: string; info: string; distribution: number }, pages: AsyncIterable<SearchHit[]>, counter: ExportCounter): AsyncGenerator<string> {
  const now = Math.floor(Date.now() / 1000);
  const head = {
    uuid: event.uuid,
    info: event.info,
    date: new Date().toISOString().slice(0, 10),
    threat_level_id: "4",
    analysis: "2",
    distribution: String(event.distribution),
    published: false,
    timestamp: String(now),
  };
  yield `{"Event":${JSON.stringify(head).slice(0, -1)},"Attribute":[`;
  const inObjects = new Map<string, Record<string, unknown>[]>();
  let standalone = 0;
  const out = new ChunkBuilder();
  for await (const hits of pages) {
    for (const h of hits) {
      if (h.index !== "svc-attributes") continue;
      if (++counter.records > MISP_MAX_ATTRIBUTES) {
        throw errors.badRequest(`A misp export holds at most ${MISP_MAX_ATTRIBUTES} attributes (what POST /events/import takes); narrow the query or use json, csv or stix`);
      }
      const attribute = mispAttribute(h.source);
      const objectUuid = typeof h.source.object_uuid === "string" ? h.source.object_uuid : null;
      if (objectUuid) {
        if (!inObjects.has(objectUuid)) inObjects.set(objectUuid, []);
        inObjects.get(objectUuid)!.push(attribute);
      } else {
        out.push(`${standalone++ ? "," : ""}${JSON.stringify(attribute)}`);
        if (out.full) yield out.take();
      }
    }
    if (!out.empty) yield out.take();
  }
  yield `],"Object":[`;
  const uuids = [...inObjects.keys()];
  let written = 0;
  for (let i = 0; i < uuids.length; i += 1000) {
    const batch = uuids.slice(i, i + 1000);
    const objects = await loadObjects(sql, batch);
    // An object deleted for good since its attributes were indexed: they are not written (nor counted).
    const found = new Set(objects.map((o) => o.uuid));
    for (const uuid of batch) if (!found.has(uuid)) counter.records -= inObjects.get(uuid)!.length;
    yield* chunked(objects, (o) => `${written++ ? "," : ""}${JSON.stringify(mispObject(o, inObjects.get(o.uuid)!))}`);
  }
  yield `],"Tag":[]}}\n`;
}
