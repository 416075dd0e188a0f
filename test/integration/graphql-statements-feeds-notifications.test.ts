/**
 * GraphQL lists of the feeds, notifications, exports and tasks areas load through their services
 * with @pothos/plugin-prisma's query: a page is the same small number of SQL statements for 2 rows
 * as for 20 (no statement per row), and still only the caller's rows.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const ROWS = 20;
let app: TestApp;
let admin: TestUser;
let other: TestUser;
const tag = crypto.randomBytes(3).toString("hex");
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

beforeAll(async () => {
  app = await startTestApp("graphql_statements_feeds", { ROLE: "api" });
  admin = await loginAdmin(app);
  other = await createUser(app, admin, 2, await createOrganisation(app, admin));
  for (let i = 0; i < ROWS; i++) {
    const feed = await app.http.post("/feeds/", {
      token: admin.token,
      json: { name: `statements ${tag} ${i}`, provider: "p", url: `https://feeds.example.org/${tag}/${i}.csv`, source_format: "csv", input_source: "network", headers: { Authorization: `Bearer secret-${i}` } },
    });
    expect(feed.status, feed.text).toBe(201);
    await q(
      `INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key) VALUES ($1, 'event.updated', 'event', $2, $3, $4)`,
      [admin.id, crypto.randomUUID(), JSON.stringify({ event_uuid: crypto.randomUUID(), event_name: `n${i}`, organisation_uuid: crypto.randomUUID(), organisation_name: "o" }), `statements:${tag}:${i}`],
    );
  }
  // Saved exports (written here: creating one queues a run, and the per-user limit would refuse 20), each with its schedule (older than the scheduled tasks below, which a page of 20 lists).
  for (let i = 0; i < ROWS; i++) {
    const task = await q(
      `INSERT INTO scheduled_tasks (name, task, schedule_type, interval_every, interval_period, enabled, owner_id, grant_scopes) VALUES ($1, 'run_export', 'interval', $2, 'hours', false, $3, '{}') RETURNING id::text`,
      [`Export ${tag} ${i}`, i + 1, admin.id],
    );
    await q(`INSERT INTO exports (user_id, name, query, index_target, format, status, file_size, scheduled_task_id) VALUES ($1, $2, '*', 'attributes', 'json', 'completed', $3, $4)`, [admin.id, `statements ${tag} ${i}`, 1000 + i, task.rows[0].id]);
  }
  // Scheduled tasks, each run once now (queued: no worker here), the run recorded as its last.
  for (let i = 0; i < ROWS; i++) {
    const t = await app.http.post("/tasks/schedule", { token: admin.token, json: { name: `statements ${tag} ${i}`, task: "generate_correlations", schedule_type: "interval", interval: { every: i + 1, period: "days" }, enabled: false } });
    expect(t.status, t.text).toBe(201);
    const run = await app.http.post(`/tasks/scheduled/${t.body.id}/run`, { token: admin.token });
    expect(run.status, run.text).toBe(202);
    await q("UPDATE scheduled_tasks SET last_run_id = $2 WHERE id = $1", [t.body.id, run.body.task_id]);
  }
  // Another user's notification and another organisation's feed: never in the admin's or in their lists.
  await q(`INSERT INTO notifications (user_id, type, entity_type, payload, dedupe_key) VALUES ($1, 'event.created', 'event', '{}', $2)`, [other.id, `statements:${tag}:other`]);
});
afterAll(() => app?.close());

async function statementsFor<T>(query: string, size: number, token = admin.token): Promise<{ statements: number; data: T }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(query, { size }, token);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { statements: counter.count, data: res.body.data as T };
  } finally {
    counter.stop();
  }
}

const SCHEDULED = `query($size: Int!) { scheduledTasks(page: 1, size: $size) { total items { id name taskName enabled dueAt lastRunId lastRunStatus schedule { type every period description } } } }`;
const RUNS = `query($size: Int!) { taskRuns(page: 1, size: $size) { total items { id scheduledTaskId taskName status attempts maxAttempts jobId args kwargs queuedAt } } }`;
const EXPORTS = `query($size: Int!) { exports(page: 1, size: $size) { total items { id name status format fileSize downloadUrl schedule scheduleEnabled scheduledTaskId } } }`;
const FEEDS = `query($size: Int!) { feeds(page: 1, size: $size) { total items { id name url headers settings orgId lastFetchedAt } } }`;
const NOTIFICATIONS = `query($size: Int!) { notifications(page: 1, size: $size, filter: "event") { total items { id type entityType entityUuid read createdAt payload { ... on EventNotificationPayload { eventName } } } } }`;

describe("GraphQL lists of feeds and notifications", () => {
  it("feeds: the same statements for 2 feeds as for 20, header values redacted", async () => {
    const small = await statementsFor<{ feeds: { items: { headers: Record<string, string> }[] } }>(FEEDS, 2);
    const large = await statementsFor<{ feeds: { items: { headers: Record<string, string> }[] } }>(FEEDS, ROWS);
    expect(small.data.feeds.items).toHaveLength(2);
    expect(large.data.feeds.items).toHaveLength(ROWS);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(4);
    expect(JSON.stringify(large.data)).not.toContain("secret-");
    expect(large.data.feeds.items[0].headers).toEqual({ Authorization: "********" });
  });

  it("feeds: another organisation's user lists none of them", async () => {
    const theirs = await statementsFor<{ feeds: { total: number; items: unknown[] } }>(FEEDS, ROWS, other.token);
    expect(theirs.data.feeds).toMatchObject({ total: 0, items: [] });
  });

  it("notifications: the same statements for 2 as for 20, only the caller's", async () => {
    const small = await statementsFor<{ notifications: { items: unknown[] } }>(NOTIFICATIONS, 2);
    const large = await statementsFor<{ notifications: { total: number; items: { type: string; payload: { eventName: string } }[] } }>(NOTIFICATIONS, ROWS);
    expect(small.data.notifications.items).toHaveLength(2);
    expect(large.data.notifications.items).toHaveLength(ROWS);
    expect(large.data.notifications.total).toBe(ROWS);
    expect(large.data.notifications.items.every((n) => n.type === "event.updated" && n.payload.eventName.startsWith("n"))).toBe(true);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(4);
    const theirs = await statementsFor<{ notifications: { total: number } }>(NOTIFICATIONS, ROWS, other.token);
    expect(theirs.data.notifications.total).toBe(1);
  });
});

describe("GraphQL lists of scheduled tasks and task runs", () => {
  it("scheduled tasks with their last run's state: the same statements for 2 as for 20", async () => {
    type Page = { scheduledTasks: { total: number; items: { lastRunStatus: string | null; schedule: { type: string; period: string } }[] } };
    const small = await statementsFor<Page>(SCHEDULED, 2);
    const large = await statementsFor<Page>(SCHEDULED, ROWS);
    expect(small.data.scheduledTasks.items).toHaveLength(2);
    expect(large.data.scheduledTasks.items).toHaveLength(ROWS);
    expect(large.data.scheduledTasks.items.every((t) => t.lastRunStatus === "QUEUED" && t.schedule.type === "INTERVAL" && t.schedule.period === "DAYS")).toBe(true);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(5);
    const theirs = await statementsFor<Page>(SCHEDULED, ROWS, other.token);
    expect(theirs.data.scheduledTasks.total).toBe(0);
  });

  it("task runs: the same statements for 2 as for 20, none of them another user's", async () => {
    type Page = { taskRuns: { total: number; items: { status: string; jobId: string | null }[] } };
    const small = await statementsFor<Page>(RUNS, 2);
    const large = await statementsFor<Page>(RUNS, ROWS);
    expect(small.data.taskRuns.items).toHaveLength(2);
    expect(large.data.taskRuns.items).toHaveLength(ROWS);
    expect(large.data.taskRuns.items.every((r) => r.status === "QUEUED")).toBe(true);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(5);
    const theirs = await statementsFor<Page>(RUNS, ROWS, other.token);
    expect(theirs.data.taskRuns.total).toBe(0);
  });
});

describe("GraphQL lists of exports", () => {
  it("exports with their schedules: the same statements for 2 as for 20, only the caller's", async () => {
    type Page = { exports: { total: number; items: { fileSize: number; schedule: { type: string; period: string } | null; scheduleEnabled: boolean }[] } };
    const small = await statementsFor<Page>(EXPORTS, 2);
    const large = await statementsFor<Page>(EXPORTS, ROWS);
    expect(small.data.exports.items).toHaveLength(2);
    expect(large.data.exports.items).toHaveLength(ROWS);
    expect(large.data.exports.items.every((e) => e.fileSize >= 1000 && e.schedule?.type === "interval" && e.schedule.period === "hours" && e.scheduleEnabled === false)).toBe(true);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(4);
    const theirs = await statementsFor<Page>(EXPORTS, ROWS, other.token);
    expect(theirs.data.exports.total).toBe(0);
  });

  it("REST GET /exports/ reads each export's schedule in the same statement: the same statements for 2 as for 20", async () => {
    const statements = async (size: number) => {
      const counter = countStatements();
      try {
        const res = await app.http.get(`/exports/?size=${size}`, { token: admin.token });
        expect(res.status).toBe(200);
        expect(res.body.items).toHaveLength(size);
        expect(res.body.items.every((e: { schedule: { type: string } | null; file_size: number }) => e.schedule?.type === "interval" && e.file_size >= 1000)).toBe(true);
        return counter.count;
      } finally {
        counter.stop();
      }
    };
    const small = await statements(2);
    const large = await statements(ROWS);
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(4);
  });
});
