import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("settings");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const uuids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
const hasLoc = (body: any, ...loc: (string | number)[]) =>
  Array.isArray(body?.detail) && body.detail.some((d: any) => JSON.stringify(d.loc.slice(0, loc.length)) === JSON.stringify(loc));

const RETENTION_DEFAULTS = { enabled: false, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"], purge_deleted_after_days: 30 };

describe("user settings", () => {
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    alice = await createUser(app, admin, 3);
    bob = await createUser(app, admin, 3);
  });

  it("starts empty, with no defaults, and a missing namespace reads as null", async () => {
    const user = await createUser(app, admin, 3);
    const all = await app.http.get("/settings/user", { token: user.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({});
    const one = await app.http.get("/settings/user/notifications", { token: user.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ notifications: null });
  });

  it("keeps settings per user: two users both save notifications and each reads only their own (no D16)", async () => {
    const [a, b] = [uuids(2), uuids(3)];
    const ra = await app.http.post("/settings/user/notifications", { token: alice.token, json: { follow: { events: a }, email_notifications: false } });
    const rb = await app.http.post("/settings/user/notifications", { token: bob.token, json: { follow: { events: b } } });
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(ra.body.message).toBe("User setting updated");

    const ga = await app.http.get("/settings/user/notifications", { token: alice.token });
    const gb = await app.http.get("/settings/user/notifications", { token: bob.token });
    expect(ga.body.notifications).toMatchObject({ follow: { events: a }, email_notifications: false });
    expect(gb.body.notifications).toMatchObject({ follow: { events: b }, email_notifications: true });

    await app.http.post("/settings/user/explore", { token: bob.token, json: { saved_searches: ["tag:tlp"] } });
    const allA = await app.http.get("/settings/user", { token: alice.token });
    expect(Object.keys(allA.body)).toEqual(["notifications"]);
    expect(allA.body.notifications.follow.events).toEqual(a);
    const allB = await app.http.get("/settings/user", { token: bob.token });
    expect(Object.keys(allB.body).sort()).toEqual(["explore", "notifications"]);
    expect(JSON.stringify(allB.body)).not.toContain(a[0]);
  });

  it("replaces the whole namespace on POST and fills the notifications defaults", async () => {
    const user = await createUser(app, admin, 3);
    await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: uuids(1) }, email_notifications: false } });
    const res = await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { attributes: [] } } });
    expect(res.status).toBe(200);
    const got = (await app.http.get("/settings/user/notifications", { token: user.token })).body.notifications;
    expect(got).toEqual({ follow: { events: [], attributes: [], objects: [], organisations: [] }, email_notifications: true });
    const empty = await app.http.post("/settings/user/notifications", { token: user.token, json: {} });
    expect(empty.status).toBe(200);
    expect((await app.http.get("/settings/user/notifications", { token: user.token })).body.notifications.email_notifications).toBe(true);
  });

  it("lower-cases and de-duplicates followed uuids", async () => {
    const id = crypto.randomUUID();
    const res = await app.http.post("/settings/user/notifications", {
      token: alice.token,
      json: { follow: { events: [id.toUpperCase(), id], organisations: [id.toUpperCase()] } },
    });
    expect(res.status).toBe(200);
    const got = (await app.http.get("/settings/user/notifications", { token: alice.token })).body.notifications;
    expect(got.follow.events).toEqual([id]);
    expect(got.follow.organisations).toEqual([id]);
  });

  it.each([
    ["an invalid uuid in a follow list", { follow: { events: ["not-a-uuid"] } }, ["body", "follow", "events", 0]],
    ["a number in a follow list", { follow: { objects: [42] } }, ["body", "follow", "objects", 0]],
    ["an unknown follow list", { follow: { hunts: [] } }, ["body", "follow"]],
    ["an unknown top-level key", { follow: {}, frequency: "daily" }, ["body"]],
    ["a non-boolean email_notifications", { email_notifications: "yes" }, ["body", "email_notifications"]],
    ["a follow list that is not an array", { follow: { events: "x" } }, ["body", "follow", "events"]],
  ])("refuses %s with 422 and keeps the stored value", async (_label, body, loc) => {
    const before = (await app.http.get("/settings/user/notifications", { token: alice.token })).body;
    const res = await app.http.post("/settings/user/notifications", { token: alice.token, json: body });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(hasLoc(res.body, ...loc)).toBe(true);
    expect((await app.http.get("/settings/user/notifications", { token: alice.token })).body).toEqual(before);
  });

  it("accepts 10 000 uuids in one list and refuses 10 001 with 422", async () => {
    const user = await createUser(app, admin, 3);
    const ok = await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: uuids(10_000) } } });
    expect(ok.status).toBe(200);
    const tooMany = await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { attributes: uuids(10_001) } } });
    expect(tooMany.status).toBe(422);
    expect(hasLoc(tooMany.body, "body", "follow", "attributes")).toBe(true);
    const got = (await app.http.get("/settings/user/notifications", { token: user.token })).body.notifications;
    expect(got.follow.events).toHaveLength(10_000);
    expect(got.follow.attributes).toEqual([]);
  });

  it("stores a free-form namespace up to 1 MiB, refuses a larger one with 413", async () => {
    const user = await createUser(app, admin, 3);
    const value = { theme: "dark", blob: "x".repeat(1_000_000) };
    const ok = await app.http.post("/settings/user/ui-prefs", { token: user.token, json: value });
    expect(ok.status).toBe(200);
    expect((await app.http.get("/settings/user/ui-prefs", { token: user.token })).body).toEqual({ "ui-prefs": value });
    const big = await app.http.post("/settings/user/ui-prefs", { token: user.token, json: { blob: "x".repeat(1_500_000) } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("payload_too_large");
    expect((await app.http.get("/settings/user/ui-prefs", { token: user.token })).body["ui-prefs"].theme).toBe("dark");
  });

  it("answers a body over 2 MiB with 413", async () => {
    const res = await app.http.post("/settings/user/ui-prefs", { token: alice.token, json: { blob: "x".repeat(2_200_000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("payload_too_large");
  });

  it.each([
    ["an array", "[1,2]"],
    ["a string", '"x"'],
    ["null", "null"],
    ["broken JSON", "{"],
  ])("refuses %s as a setting body with 4xx JSON, never 500", async (_label, raw) => {
    const res = await app.http.post("/settings/user/ui-prefs", { token: alice.token, body: raw, contentType: "application/json" });
    expect([400, 422]).toContain(res.status);
    expect(res.body.code).toBeDefined();
  });

  it.each([
    ["a path traversal", encodeURIComponent("../x")],
    ["a space and capitals", encodeURIComponent("A B")],
    ["100 characters", "a".repeat(100)],
    ["a leading digit", "1abc"],
    ["a dot", "a.b"],
  ])("refuses a namespace with %s (422) on GET, POST and DELETE", async (_label, ns) => {
    for (const res of [
      await app.http.get(`/settings/user/${ns}`, { token: alice.token }),
      await app.http.post(`/settings/user/${ns}`, { token: alice.token, json: { a: 1 } }),
      await app.http.delete(`/settings/user/${ns}`, { token: alice.token }),
    ]) {
      expect(res.status).toBe(422);
      expect(hasLoc(res.body, "path", "namespace")).toBe(true);
    }
    const { rows } = await app.booted.ctx.db.pool.query("SELECT namespace FROM user_settings WHERE user_id = $1", [alice.id]);
    expect(rows.map((r) => r.namespace).every((n: string) => /^[a-z][a-z0-9_-]{0,63}$/.test(n))).toBe(true);
  });

  it("keeps Explore's saved searches with name, query and time range, beside the peer's bare query strings; refuses malformed ones with 422", async () => {
    const user = await createUser(app, admin, 3);
    const saved = [
      { name: "Emotet last day", query: "tags.name:emotet", time_range: { preset: "24h" } },
      { name: "January", query: "type:ip-dst", time_range: { from: "2024-01-01T00:00:00.000Z", to: null } },
      "value:8.8.8.8",
    ];
    expect((await app.http.post("/settings/user/explore", { token: user.token, json: { saved_searches: saved } })).status).toBe(200);
    expect((await app.http.get("/settings/user/explore", { token: user.token })).body).toEqual({ explore: { saved_searches: saved } });
    const bad = [
      { name: "", query: "a", time_range: { preset: "24h" } },
      { name: "x", query: "a", time_range: { preset: "2h" } },
      { name: "x", query: "a", time_range: { from: "yesterday", to: null } },
      { name: "x\u0000", query: "a", time_range: { preset: "all" } },
      { name: "x", query: "a", time_range: { preset: "all" }, owner: 1 },
      { name: "x", query: "a".repeat(10_001), time_range: { preset: "all" } },
    ];
    for (const entry of bad) {
      const res = await app.http.post("/settings/user/explore", { token: user.token, json: { saved_searches: [entry] } });
      expect(res.status, JSON.stringify(entry).slice(0, 80)).toBe(422);
      expect(hasLoc(res.body, "body", "saved_searches", 0)).toBe(true);
    }
    expect((await app.http.get("/settings/user/explore", { token: user.token })).body.explore.saved_searches).toEqual(saved);
  });

  it("refuses a 101-character namespace with a 4xx, never 500", async () => {
    // Fastify's router refuses params over 100 characters itself (414) before the route's 422.
    const res = await app.http.get(`/settings/user/${"a".repeat(101)}`, { token: alice.token });
    expect([414, 422]).toContain(res.status);
  });

  it("deletes a namespace (200), then reads null; deleting again is 404", async () => {
    const user = await createUser(app, admin, 3);
    await app.http.post("/settings/user/explore", { token: user.token, json: { saved_searches: ["a"] } });
    const del = await app.http.delete("/settings/user/explore", { token: user.token });
    expect(del.status).toBe(200);
    expect(del.body.message).toBe("User setting deleted");
    expect((await app.http.get("/settings/user/explore", { token: user.token })).body).toEqual({ explore: null });
    expect((await app.http.delete("/settings/user/explore", { token: user.token })).status).toBe(404);
  });

  it("survives concurrent writes of one namespace (never 500) and keeps one row", async () => {
    const user = await createUser(app, admin, 3);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => app.http.post("/settings/user/explore", { token: user.token, json: { saved_searches: [`q${i}`] } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const { rows } = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM user_settings WHERE user_id = $1 AND namespace = 'explore'", [user.id]);
    expect(rows[0].n).toBe(1);
  });

  it("needs a caller and the user_settings scopes", async () => {
    expect((await app.http.get("/settings/user")).status).toBe(401);
    const limited = await createUser(app, admin, ["users:me"]);
    expect((await app.http.get("/settings/user", { token: limited.token })).status).toBe(403);
    expect((await app.http.post("/settings/user/explore", { token: limited.token, json: {} })).status).toBe(403);
  });
});

describe("runtime settings", () => {
  let readOnly: TestUser;
  let orgAdmin: TestUser;

  beforeAll(async () => {
    readOnly = await createUser(app, admin, 4);
    orgAdmin = await createUser(app, admin, 2);
  });

  const retention = async () => (await app.http.get("/settings/runtime/retention", { token: admin.token })).body.retention;

  it("reads the defaults", async () => {
    const all = await app.http.get("/settings/runtime", { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body.retention).toEqual(RETENTION_DEFAULTS);
    expect(all.body.notifications).toEqual({ email_max_per_hour: 10 });
    expect(all.body).toHaveProperty("correlations");
    const one = await app.http.get("/settings/runtime/retention", { token: admin.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ retention: RETENTION_DEFAULTS });
    expect((await app.http.get("/settings/runtime/notifications", { token: admin.token })).body).toEqual({ notifications: { email_max_per_hour: 10 } });
  });

  it("writes a validated namespace, records runtime_setting.updated with a diff, and resets it", async () => {
    const next = { enabled: true, period_days: 90, warning_days: 7, exempt_tags: ["retention:exempt", "tlp:red"] };
    const res = await app.http.post("/settings/runtime/retention", { token: admin.token, json: next });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Setting updated");
    // A body of the spec's four fields is whole: the newer purge_deleted_after_days takes its default.
    expect(await retention()).toEqual({ ...next, purge_deleted_after_days: 30 });
    expect((await app.http.get("/settings/runtime", { token: admin.token })).body.retention).toEqual({ ...next, purge_deleted_after_days: 30 });

    const { rows } = await app.booted.ctx.db.pool.query(
      "SELECT actor_user_id, metadata FROM audit_logs WHERE action = 'runtime_setting.updated' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0].actor_user_id).toBe(admin.id);
    expect(rows[0].metadata).toMatchObject({
      namespace: "retention",
      diff: {
        changed: {
          enabled: { before: false, after: true },
          period_days: { before: 365, after: 90 },
          warning_days: { before: 30, after: 7 },
          exempt_tags: { before: ["retention:exempt"], after: ["retention:exempt", "tlp:red"] },
        },
      },
    });

    const reset = await app.http.delete("/settings/runtime/retention", { token: admin.token });
    expect(reset.status).toBe(200);
    expect(await retention()).toEqual(RETENTION_DEFAULTS);
    const deleted = await app.booted.ctx.db.pool.query("SELECT metadata FROM audit_logs WHERE action = 'runtime_setting.deleted' ORDER BY id DESC LIMIT 1");
    expect(deleted.rows[0].metadata).toMatchObject({ namespace: "retention", previous: next });
    // Resetting an unset namespace is harmless.
    expect((await app.http.delete("/settings/runtime/retention", { token: admin.token })).status).toBe(200);
  });

  it.each([
    ["period_days 0", { period_days: 0 }, "period_days"],
    ["period_days -1", { period_days: -1 }, "period_days"],
    ["period_days as a string", { period_days: "abc" }, "period_days"],
    ["period_days 10^9", { period_days: 1_000_000_000 }, "period_days"],
    ["period_days 1.5", { period_days: 1.5 }, "period_days"],
    ["exempt_tags [1]", { exempt_tags: [1] }, "exempt_tags"],
    ["enabled as a string", { enabled: "true" }, "enabled"],
    ["an unknown key", { purge_everything: true }, "purge_everything"],
  ])("refuses retention with %s (422) and changes nothing", async (_label, patch, field) => {
    const stored = { enabled: true, period_days: 200, warning_days: 10, exempt_tags: ["keep"] };
    expect((await app.http.post("/settings/runtime/retention", { token: admin.token, json: stored })).status).toBe(200);
    const before = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM audit_logs WHERE action = 'runtime_setting.updated'");
    const res = await app.http.post("/settings/runtime/retention", { token: admin.token, json: { ...stored, ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.detail.some((d: any) => d.loc[0] === "body" && JSON.stringify(d).includes(field))).toBe(true);
    expect(await retention()).toEqual({ ...stored, purge_deleted_after_days: 30 });
    const after = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM audit_logs WHERE action = 'runtime_setting.updated'");
    expect(after.rows[0].n).toBe(before.rows[0].n);
    await app.http.delete("/settings/runtime/retention", { token: admin.token });
  });

  it("refuses a partial namespace (the body replaces the whole namespace) with 422", async () => {
    const res = await app.http.post("/settings/runtime/retention", { token: admin.token, json: { enabled: true } });
    expect(res.status).toBe(422);
    expect(await retention()).toEqual(RETENTION_DEFAULTS);
  });

  it("validates notifications.email_max_per_hour", async () => {
    expect((await app.http.post("/settings/runtime/notifications", { token: admin.token, json: { email_max_per_hour: -5 } })).status).toBe(422);
    expect((await app.http.post("/settings/runtime/notifications", { token: admin.token, json: { email_max_per_hour: 25 } })).status).toBe(200);
    expect((await app.http.get("/settings/runtime/notifications", { token: admin.token })).body).toEqual({ notifications: { email_max_per_hour: 25 } });
    await app.http.delete("/settings/runtime/notifications", { token: admin.token });
  });

  it("answers an unknown namespace with 404 on GET, POST and DELETE", async () => {
    for (const res of [
      await app.http.get("/settings/runtime/nope", { token: admin.token }),
      await app.http.post("/settings/runtime/nope", { token: admin.token, json: { a: 1 } }),
      await app.http.delete("/settings/runtime/nope", { token: admin.token }),
      await app.http.get("/settings/runtime/__proto__", { token: admin.token }),
      await app.http.get("/settings/runtime/toString", { token: admin.token }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
  });

  it("gives a read_only user (role 4) 403 on reads and writes, and an org admin 403 on writes", async () => {
    const payload = { ...RETENTION_DEFAULTS, enabled: true };
    for (const res of [
      await app.http.post("/settings/runtime/retention", { token: readOnly.token, json: payload }),
      await app.http.delete("/settings/runtime/retention", { token: readOnly.token }),
      await app.http.get("/settings/runtime", { token: readOnly.token }),
      await app.http.post("/settings/runtime/retention", { token: orgAdmin.token, json: payload }),
      await app.http.delete("/settings/runtime/retention", { token: orgAdmin.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("insufficient_scope");
    }
    expect((await app.http.get("/settings/runtime", { token: orgAdmin.token })).status).toBe(200);
    expect(await retention()).toEqual(RETENTION_DEFAULTS);
    expect((await app.http.post("/settings/runtime/retention", { json: payload })).status).toBe(401);
  });
});
