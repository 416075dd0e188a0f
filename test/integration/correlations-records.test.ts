/**
 * The change records of a batch's pairs, as their consumers read them: one
 * `attribute.correlation.created` per new pair whose payload says, field for field, what the stored
 * pair and its two attributes say (the notifier's correlation payload, the indexer's correlation id),
 * in pair order, from the batch's side; one `attribute.correlation.deleted` per removed pair; and
 * each range of 5,000 records queued once per consumer, a short tail joining the range before it.
 * The expected records are read here from the stored rows, independently of the correlator's SQL.
 * ROLE=api: the test runs the correlate_changes job's work itself, and the queued jobs stay queued.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { correlateChangeRange } from "../../src/modules/correlations/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

const lastChangeId = async () => Number((await q("SELECT COALESCE(max(id), 0)::text AS id FROM change_records")).rows[0].id);

async function importEvent(attributes: { type: string; value: string; uuid?: string }[]): Promise<string> {
  const uuid = crypto.randomUUID();
  const Attribute = attributes.map((a) => ({ uuid: crypto.randomUUID(), category: "Network activity", ...a }));
  const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid, info: `records ${uuid}`, Attribute } } });
  expect(res.status, res.text).toBe(201);
  return uuid;
}

/** Correlates every record after `since` (in ranges of 5,000, as the store queued them); the records written meanwhile are the correlator's. */
async function correlateSince(since: number): Promise<{ created: number; removed: number }> {
  const last = await lastChangeId();
  const totals = { created: 0, removed: 0 };
  for (let first = since + 1; first <= last; first += 5000) {
    const counts = await correlateChangeRange(app.booted.ctx.db.pool, first, Math.min(first + 4999, last));
    totals.created += counts.created;
    totals.removed += counts.removed;
  }
  return totals;
}

/** The records of one kind after `since`, in id order. */
async function records(kind: string, since: number) {
  const { rows } = await q(
    `SELECT id::text, entity_type, entity_uuid::text, event_uuid::text, actor_type, actor_user_id, payload FROM change_records WHERE kind = $1 AND id > $2 ORDER BY change_records.id`,
    [kind, since],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The consumers' queued ranges that start after `since`, per task, in order. */
async function queuedRanges(since: number): Promise<Record<string, [number, number][]>> {
  const { rows } = await q(
    `SELECT t.identifier AS task, (j.payload->>'first_id')::bigint::text AS first, (j.payload->>'last_id')::bigint::text AS last
       FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE t.identifier IN ('index_changes', 'correlate_changes', 'notify_changes') AND (j.payload->>'first_id')::bigint > $1
      ORDER BY (j.payload->>'first_id')::bigint`,
    [since],
  );
  const out: Record<string, [number, number][]> = {};
  for (const r of rows) (out[r.task] ??= []).push([Number(r.first), Number(r.last)]);
  return out;
}

beforeAll(async () => {
  app = await startTestApp("correlations-records", { ROLE: "api" });
  admin = await loginAdmin(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("change records of pairs", () => {
  it("announce each new and each removed pair with what the stored pair says, in ranges of 5,000 per consumer", async () => {
    // 6,000 addresses of one event inside one network of another, plus a value both events hold:
    // 6,001 pairs in the network's batch, so its records make two ranges (5,000 and 1,001).
    const hosts = Array.from({ length: 6000 }, (_, i) => ({ type: i % 2 ? "ip-dst" : "domain|ip", value: i % 2 ? `10.77.${i >> 8}.${i & 255}` : `h${i}.records.example|10.77.${i >> 8}.${i & 255}` }));
    await importEvent([...hosts, { type: "domain", value: "shared.records.example" }]);
    await correlateSince(0);
    const since = await lastChangeId();
    const networkUuid = crypto.randomUUID();
    const networkEvent = await importEvent([
      { type: "ip-dst", value: "10.77.0.0/16", uuid: networkUuid },
      { type: "domain", value: "shared.records.example" },
    ]);
    const afterStore = await lastChangeId();
    expect(await correlateSince(since)).toEqual({ created: 6001, removed: 0 });

    const { rows: pairs } = await q(
      `SELECT c.id::text, c.match_type, c.value, s.uuid::text AS s_uuid, se.uuid::text AS s_event, t.uuid::text AS t_uuid, te.uuid::text AS t_event, t.type AS t_type, t.value AS t_value
         FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN events se ON se.id = s.event_id
         JOIN attributes t ON t.id = c.target_attribute_id JOIN events te ON te.id = t.event_id
        WHERE se.uuid = $1 OR te.uuid = $1 ORDER BY c.id`,
      [networkEvent],
    );
    expect(pairs).toHaveLength(6001);
    // The batch's attributes are the sources: their followers hear of the pairs.
    expect(new Set(pairs.map((p) => p.s_event))).toEqual(new Set([networkEvent]));
    const created = await records("attribute.correlation.created", afterStore);
    expect(created.map(({ id: _, ...r }) => r)).toEqual(
      pairs.map((p) => ({
        entity_type: "attribute",
        entity_uuid: p.s_uuid,
        event_uuid: p.s_event,
        actor_type: "system",
        actor_user_id: null,
        payload: {
          correlation_id: Number(p.id),
          match_type: p.match_type,
          value: p.value,
          source_attribute_uuid: p.s_uuid,
          source_event_uuid: p.s_event,
          target_event_uuid: p.t_event,
          target_attribute_uuid: p.t_uuid,
          target_attribute_type: p.t_type,
          target_attribute_value: p.t_value,
        },
      })),
    );
    expect(pairs.filter((p) => p.match_type === "cidr")).toHaveLength(6000);
    expect(pairs.find((p) => p.match_type !== "cidr")).toMatchObject({ match_type: "term", value: "shared.records.example", t_type: "domain" });

    const ids = created.map((r) => r.id);
    const expectedRanges = [
      [ids[0], ids[4999]],
      [ids[5000], ids[6000]],
    ];
    const ranges = await queuedRanges(afterStore);
    for (const task of ["index_changes", "correlate_changes", "notify_changes"]) expect(ranges[task]).toEqual(expectedRanges);

    // A second pass over the same records changes nothing and announces nothing.
    expect(await correlateSince(since)).toEqual({ created: 0, removed: 0 });
    expect(await records("attribute.correlation.created", afterStore)).toHaveLength(6001);

    // The network changes value: its 6,000 pairs go, each announced once with what identifies it.
    const beforeChange = await lastChangeId();
    const res = await app.http.patch(`/attributes/${networkUuid}`, { token: admin.token, json: { value: "10.78.0.0/16" } });
    expect(res.status, res.text).toBe(200);
    const afterPatch = await lastChangeId();
    expect(await correlateSince(beforeChange)).toEqual({ created: 0, removed: 6000 });
    const removed = await records("attribute.correlation.deleted", afterPatch);
    const gone = pairs.filter((p) => p.match_type === "cidr");
    expect(removed.map(({ id: _, ...r }) => r)).toEqual(
      gone.map((p) => ({
        entity_type: "attribute",
        entity_uuid: p.s_uuid,
        event_uuid: p.s_event,
        actor_type: "system",
        actor_user_id: null,
        payload: { correlation_id: Number(p.id), match_type: "cidr", source_attribute_uuid: p.s_uuid, target_attribute_uuid: p.t_uuid },
      })),
    );
    const removedIds = removed.map((r) => r.id);
    const removedRanges = await queuedRanges(afterPatch);
    for (const task of ["index_changes", "correlate_changes", "notify_changes"]) expect(removedRanges[task]).toEqual([
        [removedIds[0], removedIds[4999]],
        [removedIds[5000], removedIds[5999]],
      ]);
  }, 120_000);
});
