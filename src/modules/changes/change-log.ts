import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { CORRELATE_CHANGES_TASK, CORRELATION_QUEUE, INDEX_CHANGES_TASK, NOTIFY_CHANGES_TASK, SEARCH_INDEX_QUEUE, type JobName } from "../../platform/job-names.ts";
import { enqueueJob, type JobExecutor } from "../../platform/job-queue.ts";

export type EntityType = "event" | "attribute" | "object" | "object_reference" | "sighting" | "report";

/** Kinds are `<entity>.<verb>`: event.created|updated|deleted|published|unpublished|tagged|untagged, ... */
export interface Change {
  kind: string;
  entityType: EntityType;
  entityUuid: string;
  eventUuid: string | null;
  payload?: Record<string, unknown> | null;
}

/**
 * An event's soft delete and its restore. Not `event.deleted`/`event.updated`: the event's followers
 * are not told (the peer's behaviour), while the indexer and the correlator re-read the event and all
 * its attributes (their documents say deleted, their pairs go, and come back on restore).
 */
export const EVENT_SOFT_DELETED = "event.soft_deleted";
export const EVENT_RESTORED = "event.restored";
export const isEventTrashChange = (kind: string) => kind === EVENT_SOFT_DELETED || kind === EVENT_RESTORED;

/** The job key of a consumer's job for one range: a second enqueue of the same range replaces it. */
export const changeRangeJobKey = (task: string, firstId: number, lastId: number) => `${task}:${firstId}-${lastId}`;

/**
 * Consumers of the change log, each a graphile-worker task that takes `{first_id, last_id}` and is
 * idempotent over its range. A consumer with a queue runs its jobs one at a time.
 */
const CHANGE_CONSUMERS: readonly { task: JobName; queueName?: string }[] = [
  { task: INDEX_CHANGES_TASK, queueName: SEARCH_INDEX_QUEUE },
  { task: CORRELATE_CHANGES_TASK, queueName: CORRELATION_QUEUE },
  { task: NOTIFY_CHANGES_TASK },
];

/**
 * One job per consumer for a range, in the writer's transaction. The consumers read current rows and
 * are idempotent, so a job id (its place in a serial queue) taken before commit rather than in commit
 * order changes nothing they rely on. Their task and queue rows exist from the migration on
 * (`prepareJobQueues`): `add_job` inserts only the job then, and concurrent writers never wait on
 * each other's uncommitted queue row, as they did when the first writers created it (a30ca75).
 */
export async function enqueueChangeConsumers(sql: JobExecutor, firstId: number, lastId: number): Promise<void> {
  for (const { task, queueName } of CHANGE_CONSUMERS) {
    await enqueueJob(sql, task, { first_id: firstId, last_id: lastId }, { jobKey: changeRangeJobKey(task, firstId, lastId), queueName });
  }
}

const CHUNK = 5000;
/** A last range this much smaller than CHUNK joins the one before it. */
const TAIL = CHUNK / 10;

/**
 * Where the ranges of `n` records end: CHUNK records each, except that a short tail joins the range
 * before it. A write of 5,000 attributes records 5,001 changes (its event's too): one range, not a
 * second one of one record that costs each consumer a job of its own.
 */
function rangeEnds(n: number): number[] {
  const ends: number[] = [];
  for (let end = CHUNK; end < n; end += CHUNK) ends.push(end);
  if (ends.length && n - ends[ends.length - 1] < TAIL) ends.pop();
  if (n > 0) ends.push(n);
  return ends;
}

/**
 * Enqueues the consumers of records a caller wrote itself in its transaction (their ids, ascending),
 * ranged as `recordChanges` ranges its own: the correlator makes a batch's records in the statement
 * that stores its pairs.
 */
export async function enqueueChangeRanges(sql: JobExecutor, ids: number[]): Promise<void> {
  let start = 0;
  for (const end of rangeEnds(ids.length)) {
    await enqueueChangeConsumers(sql, ids[start], ids[end - 1]);
    start = end;
  }
}

/**
 * Appends change records inside the caller's transaction and enqueues each range's consumer jobs in
 * the same transaction: the records and their follow-up jobs exist exactly when the change commits.
 */
export async function recordChanges(sql: Sql, actor: Principal | null, changes: Change[]): Promise<void> {
  let start = 0;
  for (const end of rangeEnds(changes.length)) {
    const chunk = changes.slice(start, end);
    start = end;
    const { rows } = await sql.query<{ first: string; last: string }>(
      `WITH inserted AS (
         INSERT INTO change_records (kind, entity_type, entity_uuid, event_uuid, actor_type, actor_user_id, payload)
         SELECT kind, entity_type, entity_uuid, event_uuid, $6, $7, payload
           FROM unnest($1::text[], $2::text[], $3::uuid[], $4::uuid[], $5::jsonb[]) AS c(kind, entity_type, entity_uuid, event_uuid, payload)
         RETURNING id)
       SELECT min(id)::text AS first, max(id)::text AS last FROM inserted`,
      [
        chunk.map((c) => c.kind),
        chunk.map((c) => c.entityType),
        chunk.map((c) => c.entityUuid),
        chunk.map((c) => c.eventUuid),
        chunk.map((c) => (c.payload ? JSON.stringify(c.payload) : null)),
        actor?.actorType ?? "system",
        actor?.userId ?? null,
      ],
    );
    await enqueueChangeConsumers(sql, Number(rows[0].first), Number(rows[0].last));
  }
}
