import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { DISPATCH_CHANGES_TASK } from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";

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

const CHUNK = 5000;

/**
 * Appends change records inside the caller's transaction and enqueues one dispatch job per range,
 * in the same transaction: the records and their follow-up jobs exist exactly when the change commits.
 */
export async function recordChanges(sql: Sql, actor: Principal | null, changes: Change[]): Promise<void> {
  for (let i = 0; i < changes.length; i += CHUNK) {
    const chunk = changes.slice(i, i + CHUNK);
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
    await enqueueJob(sql, DISPATCH_CHANGES_TASK, { first_id: Number(rows[0].first), last_id: Number(rows[0].last) });
  }
}
