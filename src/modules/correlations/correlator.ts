import type pg from "pg";
import type { Change } from "../changes/index.ts";
import { enqueueChangeRanges, isEventTrashChange } from "../changes/index.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { RUNTIME_DEFAULTS } from "../settings/index.ts";
import { isCompositeType, splitComposite } from "../attributes/index.ts";
import {
  attributeUuidsById,
  correlateBatch,
  correlationSettings,
  CORRELATION_CREATED,
  CORRELATION_DELETED,
  type BatchOutcome,
  type CorrelationSettings,
  type PairRow,
} from "./correlation-store.ts";

/** Attributes per transaction of a rebuild (its progress moves by one batch at a time). */
export const CORRELATION_BATCH = 1000;
/**
 * Attributes of a change range per transaction: a range holds at most 5,000 records (the change
 * log's chunk), so a feed's range correlates in one transaction and its new pairs make one range of
 * records, not five (each of which the indexer, the notifier and the correlator then read as a job).
 */
const RANGE_BATCH = 5000;
export { CORRELATION_CREATED, CORRELATION_DELETED };
/** Change records of pairs: the correlation job skips them, the indexer writes their documents. */
export const isCorrelationChange = (kind: string) => kind === CORRELATION_CREATED || kind === CORRELATION_DELETED;

/** Event fields whose change re-correlates every attribute of the event. */
const RECORRELATING_EVENT_FIELDS = new Set(["disableCorrelation"]);

interface ChangeRow {
  kind: string;
  entity_type: string;
  entity_uuid: string;
  payload: { fields?: string[]; attribute_type?: string; attribute_value?: string } | null;
}

export interface CorrelationCounts {
  attributes: number;
  created: number;
  removed: number;
}

export const loadSettings = (sql: Sql) => correlationSettings(sql, RUNTIME_DEFAULTS.correlations);

/**
 * One batch in one transaction: the pairs and the change records that announce them commit
 * together, so a retried job finds its pairs stored and announces nothing twice.
 */
export async function correlateInTransaction(
  pool: pg.Pool,
  ids: number[],
  settings: CorrelationSettings,
  alsoInTransaction?: (client: pg.PoolClient, outcome: BatchOutcome) => Promise<void>,
  goneValues: string[] = [],
): Promise<BatchOutcome> {
  return withTransaction(pool, async (client) => {
    // Short statements whose estimates are inflated by popular values: JIT only costs here.
    await client.query("SET LOCAL jit = off");
    const outcome = await correlateBatch(client, ids, settings, goneValues);
    await enqueueChangeRanges(client, outcome.changeIds);
    await alsoInTransaction?.(client, outcome);
    return outcome;
  });
}

/** One `attribute.correlation.deleted` per removed pair (the indexer deletes both of its documents by id). */
export async function removalChanges(sql: Sql, removed: PairRow[]): Promise<Change[]> {
  if (removed.length === 0) return [];
  const uuids = await attributeUuidsById(sql, removed.flatMap((p) => [p.source_attribute_id, p.target_attribute_id]));
  const changes: Change[] = [];
  for (const p of removed) {
    const source = uuids.get(p.source_attribute_id);
    const target = uuids.get(p.target_attribute_id);
    if (!source || !target) continue;
    changes.push({
      kind: CORRELATION_DELETED,
      entityType: "attribute",
      entityUuid: source.uuid,
      eventUuid: source.eventUuid,
      payload: { correlation_id: p.id, match_type: p.match_type, source_attribute_uuid: source.uuid, target_attribute_uuid: target.uuid },
    });
  }
  return changes;
}

/** The parts of a stored value as value1/value2 hold them (the catalogue's split of composites). */
const partsOf = (type: string | undefined, value: string) => {
  const parts = type && isCompositeType(type) ? splitComposite(type, value) : null;
  return parts ? parts.map((p) => p.value) : [value];
};

/**
 * The attribute ids a range of change records asks to (re)correlate, and the values of attributes
 * deleted with their event or object (their rows, and their pairs, are gone).
 */
async function attributesToCorrelate(sql: Sql, firstId: number, lastId: number): Promise<{ ids: number[]; goneValues: string[] }> {
  const { rows } = await sql.query<ChangeRow>(
    "SELECT kind, entity_type, entity_uuid::text, payload FROM change_records WHERE id BETWEEN $1 AND $2",
    [firstId, lastId],
  );
  const attributes = new Set<string>();
  const events = new Set<string>();
  const goneValues = new Set<string>();
  for (const r of rows) {
    if (r.entity_type === "attribute") {
      if (isCorrelationChange(r.kind) || r.kind.endsWith("tagged")) continue;
      attributes.add(r.entity_uuid);
      if (r.kind === "attribute.deleted" && r.payload?.attribute_value) for (const v of partsOf(r.payload.attribute_type, r.payload.attribute_value)) goneValues.add(v);
    } else if (isEventTrashChange(r.kind) || (r.kind === "event.updated" && (!r.payload?.fields || r.payload.fields.some((f) => RECORRELATING_EVENT_FIELDS.has(f))))) {
      events.add(r.entity_uuid);
    }
  }
  if (attributes.size === 0 && events.size === 0) return { ids: [], goneValues: [] };
  const { rows: ids } = await sql.query<{ id: number }>(
    // Uuid by uuid through the unique index (OFFSET 0): a table loaded since its last ANALYZE was scanned whole otherwise.
    `SELECT a.id FROM unnest($1::uuid[]) AS u(uuid) CROSS JOIN LATERAL (SELECT id FROM attributes WHERE uuid = u.uuid OFFSET 0) a
     UNION SELECT a.id FROM events e CROSS JOIN LATERAL (SELECT id FROM attributes WHERE event_id = e.id OFFSET 0) a WHERE e.uuid = ANY($2::uuid[])
     ORDER BY 1`,
    [[...attributes], [...events]],
  );
  return { ids: ids.map((r) => r.id), goneValues: [...goneValues] };
}

/** Correlates what a range of change records touched (hard-deleted attributes lost their pairs by cascade). */
export async function correlateChangeRange(pool: pg.Pool, firstId: number, lastId: number): Promise<CorrelationCounts> {
  const { ids, goneValues } = await attributesToCorrelate(pool, firstId, lastId);
  const counts: CorrelationCounts = { attributes: ids.length, created: 0, removed: 0 };
  if (ids.length === 0 && goneValues.length === 0) return counts;
  const settings = await loadSettings(pool);
  const batches = Math.max(Math.ceil(ids.length / RANGE_BATCH), Math.ceil(goneValues.length / RANGE_BATCH));
  for (let b = 0; b < batches; b++) {
    const slice = (list: (number | string)[]) => list.slice(b * RANGE_BATCH, (b + 1) * RANGE_BATCH);
    const outcome = await correlateInTransaction(pool, slice(ids) as number[], settings, undefined, slice(goneValues) as string[]);
    counts.created += outcome.created.length;
    counts.removed += outcome.removed.length;
  }
  return counts;
}
