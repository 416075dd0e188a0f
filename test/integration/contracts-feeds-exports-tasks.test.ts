/**
 * One input contract per operation of the feeds, exports, tasks, settings and notifications areas:
 * a bad value is a 422 naming its place over REST (snake_case, in the body, query or path) and over
 * GraphQL (`validation_error` under the argument, or under `input`), from the same rules; and
 * nothing is written.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const count = async (table: string) => (await q(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

beforeAll(async () => {
  app = await startTestApp("contracts_feeds_exports_tasks", { ROLE: "api" });
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const restLocs = (res: { status: number; body: { code?: string; detail?: { loc: unknown[] }[] } }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.code).toBe("validation_error");
  return res.body.detail!.map((d) => d.loc);
};

async function gqlLocs(query: string, variables: Record<string, unknown> = {}): Promise<unknown[][]> {
  const res = await app.http.graphql(query, variables, admin.token);
  const ext = res.body.errors?.[0]?.extensions as { code: string; detail: { loc: unknown[] }[] } | undefined;
  expect(ext?.code, JSON.stringify(res.body)).toBe("validation_error");
  return ext!.detail.map((d) => d.loc);
}

describe("exports", () => {
  it("create: REST names the body field, GraphQL the input field; nothing stored", async () => {
    const before = await count("exports");
    expect(restLocs(await app.http.post("/exports/", { token: admin.token, json: { name: "x", query: "*", format: "misp", distribution: 1, index_target: "events" } }))).toContainEqual(["body", "index_target"]);
    expect(restLocs(await app.http.post("/exports/", { token: admin.token, json: { name: "x", query: "*", schedule_enabled: "yes" } }))).toContainEqual(["body", "schedule_enabled"]);
    expect(restLocs(await app.http.post("/exports/", { token: admin.token, json: { name: "x", query: "*", schedule: { type: "crontab", hour: "25" } } }))).toContainEqual(["body", "schedule", "hour"]);
    expect(await gqlLocs(`mutation { createExport(input: { name: "x", query: "*", format: MISP }) { id } }`)).toContainEqual(["args", "input", "distribution"]);
    expect(await gqlLocs(`mutation { createExport(input: { name: "x", query: "*", distribution: 7 }) { id } }`)).toContainEqual(["args", "input", "distribution"]);
    expect(await gqlLocs(`mutation { createExport(input: { name: "x", query: "*", schedule: { type: "interval", every: 0 } }) { id } }`)).toContainEqual(["args", "input", "schedule", "every"]);
    expect(await gqlLocs(`mutation { createExport(input: { name: "   ", query: "*" }) { id } }`)).toContainEqual(["args", "input", "name"]);
    expect(await count("exports")).toBe(before);
  });

  it("schedule: REST names body.schedule's field, GraphQL the schedule argument's; the schedule is unchanged", async () => {
    const created = await app.http.post("/exports/", { token: admin.token, json: { name: `contract ${crypto.randomUUID()}`, query: "*" } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    expect(restLocs(await app.http.patch(`/exports/${id}/schedule`, { token: admin.token, json: { schedule: { type: "crontab", minute: "61" } } }))).toContainEqual(["body", "schedule", "minute"]);
    expect(restLocs(await app.http.patch(`/exports/${id}/schedule`, { token: admin.token, json: { schedule: { type: "interval", every: 1e12 } } }))).toContainEqual(["body", "schedule", "every"]);
    expect(await gqlLocs(`mutation($id: Int!) { setExportSchedule(id: $id, schedule: { type: "interval" }) { id } }`, { id })).toContainEqual(["args", "schedule", "every"]);
    expect(await gqlLocs(`mutation($id: Int!) { setExportSchedule(id: $id, schedule: { type: "crontab", timezone: "Mars/Olympus" }) { id } }`, { id })).toContainEqual(["args", "schedule", "timezone"]);
    expect((await q("SELECT scheduled_task_id FROM exports WHERE id = $1", [id])).rows[0].scheduled_task_id).toBeNull();
  });
});

describe("scheduled tasks", () => {
  const body = (extra: Record<string, unknown> = {}) => ({ name: "contract", task: "generate_correlations", schedule_type: "interval", interval: { every: 1, period: "hours" }, ...extra });

  it("create: REST names the body field (spec and peer bodies), GraphQL the argument; nothing stored", async () => {
    const before = await count("scheduled_tasks");
    expect(restLocs(await app.http.post("/tasks/schedule", { token: admin.token, json: body({ kwargs: { rm: 1 } }) }))).toContainEqual(["body", "kwargs", "rm"]);
    expect(restLocs(await app.http.post("/tasks/schedule", { token: admin.token, json: body({ args: Array.from({ length: 101 }, () => 1) }) }))).toContainEqual(["body", "args"]);
    expect(restLocs(await app.http.post("/tasks/schedule", { token: admin.token, json: { task_name: "generate_correlations", schedule: { type: "crontab", day_of_week: "9" } } }))).toContainEqual(["body", "crontab", "day_of_week"]);
    expect(restLocs(await app.http.post("/tasks/schedule", { token: admin.token, json: { task_name: "generate_correlations", params: { kwargs: { x: 1 } }, schedule: { type: "interval", every: 60 } } }))).toContainEqual(["body", "kwargs", "x"]);
    const schedule = { type: "INTERVAL", every: 1, period: "HOURS" };
    const create = `mutation($t: String!, $s: ScheduleInput!, $k: JSON) { scheduleTask(name: "contract", task: $t, schedule: $s, kwargs: $k) { id } }`;
    expect(await gqlLocs(create, { t: "generate_correlations", s: { type: "INTERVAL", every: 0 } })).toContainEqual(["args", "schedule", "every"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: { type: "INTERVAL" } })).toContainEqual(["args", "schedule", "every"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: { type: "CRONTAB", hour: "noon" } })).toContainEqual(["args", "schedule", "hour"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: { type: "CRONTAB", dayOfWeek: "9" } })).toContainEqual(["args", "schedule", "dayOfWeek"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: { type: "CRONTAB", dayOfMonth: "31", monthOfYear: "2" } })).toContainEqual(["args", "schedule", "dayOfMonth"]);
    expect(await gqlLocs(create, { t: "rm_rf", s: schedule })).toContainEqual(["args", "task"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: schedule, k: [1] })).toContainEqual(["args", "kwargs"]);
    expect(await gqlLocs(create, { t: "generate_correlations", s: schedule, k: { rm: true } })).toContainEqual(["args", "kwargs", "rm"]);
    expect(await count("scheduled_tasks")).toBe(before);
  });

  it("update: the same contract; the stored schedule is unchanged", async () => {
    const created = await app.http.post("/tasks/schedule", { token: admin.token, json: body({ enabled: false }) });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const stored = async () => (await q("SELECT name, interval_every, cron_minute, enabled FROM scheduled_tasks WHERE id = $1", [id])).rows[0];
    const before = await stored();
    expect(restLocs(await app.http.patch(`/tasks/scheduled/${id}`, { token: admin.token, json: { name: "" } }))).toContainEqual(["body", "name"]);
    expect(restLocs(await app.http.patch(`/tasks/scheduled/${id}`, { token: admin.token, json: { schedule_type: "interval", interval: { every: -1 } } }))).toContainEqual(["body", "interval", "every"]);
    const update = `mutation($id: String!, $s: ScheduleInput, $n: String) { updateScheduledTask(id: $id, schedule: $s, name: $n) { id } }`;
    expect(await gqlLocs(update, { id, s: { type: "CRONTAB", minute: "61" } })).toContainEqual(["args", "schedule", "minute"]);
    expect(await gqlLocs(update, { id, n: "x".repeat(256) })).toContainEqual(["args", "name"]);
    expect(await stored()).toEqual(before);
  });
});

describe("feeds", () => {
  const feed = (extra: Record<string, unknown> = {}) => ({ name: "contract", provider: "p", url: "https://feeds.example.org/contract.csv", source_format: "csv", input_source: "network", ...extra });
  const FIELDS = `mutation($f: FeedFields!) { createFeed(feed: $f) { feed { id } } }`;
  const gqlFeed = (extra: Record<string, unknown> = {}) => ({ name: "contract", provider: "p", url: "https://feeds.example.org/contract.csv", sourceFormat: "CSV", inputSource: "NETWORK", ...extra });

  it("create: REST names the body field, GraphQL the feed argument's field (the contract's rules and the service's); nothing stored", async () => {
    const before = await count("feeds");
    expect(restLocs(await app.http.post("/feeds/", { token: admin.token, json: feed({ event_uuid: "nope" }) }))).toContainEqual(["body", "event_uuid"]);
    expect(restLocs(await app.http.post("/feeds/", { token: admin.token, json: feed({ override_ids: "yes" }) }))).toContainEqual(["body", "override_ids"]);
    expect(restLocs(await app.http.post("/feeds/", { token: admin.token, json: feed({ url: "gopher://feeds.example.org/x" }) }))).toContainEqual(["body", "url"]);
    expect(await gqlLocs(FIELDS, { f: gqlFeed({ distribution: 9 }) })).toContainEqual(["args", "feed", "distribution"]);
    expect(await gqlLocs(FIELDS, { f: gqlFeed({ tags: ["x".repeat(256)] }) })).toContainEqual(["args", "feed", "tags", 0]);
    expect(await gqlLocs(FIELDS, { f: gqlFeed({ name: null }) })).toContainEqual(["args", "feed", "name"]);
    expect(await gqlLocs(FIELDS, { f: gqlFeed({ url: "https://user:pw@feeds.example.org/x" }) })).toContainEqual(["args", "feed", "url"]);
    expect(await gqlLocs(FIELDS, { f: gqlFeed({ settings: { csvConfig: { delimiter: "" } } }) })).toContainEqual(["args", "feed", "settings", "csvConfig", "delimiter"]);
    expect(await count("feeds")).toBe(before);
  });

  it("update and preview: the same rules; the feed is unchanged", async () => {
    const created = await app.http.post("/feeds/", { token: admin.token, json: feed() });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    const stored = async () => (await q("SELECT name, distribution, tags, url FROM feeds WHERE id = $1", [id])).rows[0];
    const before = await stored();
    expect(restLocs(await app.http.patch(`/feeds/${id}`, { token: admin.token, json: { tags: [""] } }))).toContainEqual(["body", "tags", 0]);
    expect(restLocs(await app.http.patch(`/feeds/${id}`, { token: admin.token, json: { url: "not a url" } }))).toContainEqual(["body", "url"]);
    expect(await gqlLocs(`mutation($id: Int!) { updateFeed(id: $id, feed: { distribution: -1 }) { id } }`, { id })).toContainEqual(["args", "feed", "distribution"]);
    expect(await stored()).toEqual(before);

    expect(restLocs(await app.http.post("/feeds/csv/preview", { token: admin.token, json: { input_source: "network", url: "ftp://feeds.example.org/x" } }))).toContainEqual(["body", "url"]);
    expect(restLocs(await app.http.post("/feeds/csv/preview", { token: admin.token, json: { input_source: "network", url: "https://feeds.example.org/x", settings: { csvConfig: { header: "yes" } } } }))).toContainEqual(["body", "settings", "csvConfig", "header"]);
    expect(await gqlLocs(`{ feedPreview(format: CSV, inputSource: NETWORK, url: "https://feeds.example.org/x", limit: 500) { where } }`)).toContainEqual(["args", "limit"]);
    expect(await gqlLocs(`{ feedPreview(format: CSV, inputSource: NETWORK, url: "https://feeds.example.org/x", settings: { csvConfig: { delimiter: "" } }) { where } }`)).toContainEqual(["args", "settings", "csvConfig", "delimiter"]);
  });
});

describe("settings", () => {
  it("a known namespace's value: REST names the body's key, GraphQL the value argument's; nothing stored", async () => {
    const stored = async () => (await q("SELECT value FROM user_settings WHERE user_id = $1 AND namespace = 'notifications'", [admin.id])).rows[0] ?? null;
    const before = await stored();
    expect(restLocs(await app.http.post("/settings/user/notifications", { token: admin.token, json: { email_notifications: "yes" } }))).toContainEqual(["body", "email_notifications"]);
    expect(await gqlLocs(`mutation { setUserSetting(namespace: "notifications", value: { email_notifications: "yes" }) }`)).toContainEqual(["args", "value", "email_notifications"]);
    expect(await gqlLocs(`mutation { setUserSetting(namespace: "notifications", value: { follow: { events: ["nope"] } }) }`)).toContainEqual(["args", "value", "follow", "events", 0]);
    expect(await stored()).toEqual(before);

    const runtime = async () => (await q("SELECT value FROM runtime_settings WHERE namespace = 'notifications'")).rows[0] ?? null;
    const runtimeBefore = await runtime();
    expect(restLocs(await app.http.post("/settings/runtime/notifications", { token: admin.token, json: { email_max_per_hour: -5 } }))).toContainEqual(["body", "email_max_per_hour"]);
    expect(await gqlLocs(`mutation { setRuntimeSetting(namespace: "notifications", value: { email_max_per_hour: -5 }) }`)).toContainEqual(["args", "value", "email_max_per_hour"]);
    expect(await runtime()).toEqual(runtimeBefore);
  });

  it("a free-form namespace stays free-form JSON; a bad namespace is named as such", async () => {
    const ok = await app.http.graphql(`mutation { setUserSetting(namespace: "ui-contract", value: { anyKey: [1, { nested: true }] }) }`, {}, admin.token);
    expect(ok.body.data.setUserSetting).toEqual({ anyKey: [1, { nested: true }] });
    expect(await gqlLocs(`mutation { setUserSetting(namespace: "Not A Namespace", value: {}) }`)).toContainEqual(["args", "namespace"]);
  });
});

describe("notifications", () => {
  it("list parameters, read-marking ids and follows: REST names the parameter, GraphQL the argument; nothing changes", async () => {
    expect(restLocs(await app.http.get(`/notifications?type=${"x".repeat(201)}`, { token: admin.token }))).toContainEqual(["query", "type"]);
    expect(restLocs(await app.http.patch("/notifications/x1/read", { token: admin.token }))).toContainEqual(["path", "notification_id"]);
    expect(await gqlLocs(`{ notifications(filter: "${"x".repeat(201)}") { total } }`)).toContainEqual(["args", "filter"]);
    expect(await gqlLocs(`mutation { markNotificationRead(id: "x1") }`)).toContainEqual(["args", "id"]);
    expect(await gqlLocs(`mutation { deleteNotification(id: "0") }`)).toContainEqual(["args", "id"]);
    const settings = async () => (await q("SELECT value FROM user_settings WHERE user_id = $1 AND namespace = 'notifications'", [admin.id])).rows[0] ?? null;
    const before = await settings();
    expect(await gqlLocs(`mutation { follow(list: EVENTS, uuid: "nope") }`)).toContainEqual(["args", "uuid"]);
    expect(await settings()).toEqual(before);
  });
});
