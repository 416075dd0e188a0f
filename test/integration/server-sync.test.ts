/**
 * Sync with MISP servers (issue 26) between two real instances of this service, each with its own
 * database, each the other's remote MISP through /misp/. A pulls from B (rules, cursor, Orgc kept,
 * distributions downgraded as MISP does unless the server is internal, incremental, resumed after a
 * remote failure without fetching anything twice), B pulls from A, A pushes to B (distributions 0 and
 * 1, a sharing group B's organisation is not in, and such attributes and objects stay home; connected
 * communities go as community only; distributions capped; an update goes as events/edit). The API
 * key never appears in any answer, error or stored column; hostile inputs are 4xx.
 */
import crypto from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { connectMcp, toolOk, toolRefused } from "../support/mcp-client.ts";
import { eventually } from "../support/process.ts";

const SYNC_SCOPES = ["events:read", "events:create", "events:update", "events:sync", "events:publish", "attributes:read", "tags:read", "tags:create", "sightings:read", "users:me"];

interface Side {
  app: TestApp;
  admin: TestUser;
  /** The raw API key, valid here, of the sync user standing for the other side. */
  syncKey: string;
  /** The organisation that sync user belongs to here. */
  syncOrgName: string;
}

let a: Side;
let b: Side;
/** Every answer body the tests read, to look for the keys in. */
const answers: string[] = [];

const uuid = () => crypto.randomUUID();
const now = () => Math.floor(Date.now() / 1000);
/** The same attribute uuid for the same value of an event, so a re-import updates instead of adding. */
const valueUuid = (event: string, value: string) => {
  const h = crypto.createHash("sha256").update(`${event}:${value}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

async function call(app: TestApp, method: string, path: string, token: string, json?: unknown) {
  const res = await app.http.request(method, path, { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { json }) });
  answers.push(res.text);
  return res;
}

async function side(label: string, org: string, peerOrg: string): Promise<Side> {
  const app = await startTestApp(label, { ROLE: "all", ORG_NAME: org });
  const admin = await loginAdmin(app);
  const allow = await app.http.post("/settings/runtime/feeds", { token: admin.token, json: { allowed_private_networks: ["127.0.0.1/32"], fetch_timeout_seconds: 10, max_download_bytes: 16 << 20 } });
  expect(allow.status, allow.text).toBe(200);
  // The peer's sync user here belongs to an organisation standing for the peer, as in MISP.
  const orgId = await createOrganisation(app, admin, `${peerOrg} (sync)`);
  const user = await createUser(app, admin, [...SYNC_SCOPES, "api_keys:create"], orgId);
  const key = await app.http.post("/api-keys/", { token: user.token, json: { name: "sync", scopes: SYNC_SCOPES } });
  expect(key.status, key.text).toBe(201);
  return { app, admin, syncKey: key.body.token, syncOrgName: `${peerOrg} (sync)` };
}

/** An event in MISP JSON, imported as the side's administrator (their organisation's). */
async function importEvent(s: Side, e: { uuid: string; info: string; distribution: number; published?: boolean; timestamp?: number; attributes?: { value: string; distribution?: number }[]; extra?: Record<string, unknown> }) {
  const Event = {
    uuid: e.uuid,
    info: e.info,
    date: "2026-11-20",
    threat_level_id: "2",
    analysis: "1",
    distribution: String(e.distribution),
    published: e.published ?? true,
    timestamp: String(e.timestamp ?? now()),
    Tag: [{ name: "tlp:green" }],
    Attribute: (e.attributes ?? [{ value: `${e.uuid.slice(0, 8)}.example.org` }]).map((x, i) => ({
      uuid: valueUuid(e.uuid, x.value), type: "domain", category: "Network activity", value: x.value, to_ids: true, distribution: String(x.distribution ?? 5), timestamp: String(e.timestamp ?? now() - i),
    })),
    ...e.extra,
  };
  const res = await call(s.app, "POST", "/events/import", s.admin.token, { Event });
  expect([200, 201], res.text).toContain(res.status);
  return res.body;
}

async function addServer(on: Side, remote: Side, body: Record<string, unknown> = {}, url = `${remote.app.url}/misp/`) {
  const res = await call(on.app, "POST", "/servers/", on.admin.token, { name: `to-${remote.syncOrgName}`, url, authkey: remote.syncKey, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; pull_cursor: number };
}

async function finished(s: Side, runId: string) {
  return eventually(async () => {
    const res = await call(s.app, "GET", `/tasks/${runId}`, s.admin.token);
    return ["succeeded", "failed", "cancelled"].includes(res.body.status) ? res.body : undefined;
  }, `run ${runId}`, 90_000, 200);
}

async function run(s: Side, path: string) {
  const res = await call(s.app, "POST", path, s.admin.token);
  expect(res.status, res.text).toBe(202);
  return finished(s, res.body.task.id);
}

const getEvent = async (s: Side, id: string) => call(s.app, "GET", `/events/${id}`, s.admin.token);

/** A plain HTTP proxy to `target` that records each events/view path and events/index body, and can answer 500 instead. */
function proxy(target: string) {
  const views: string[] = [];
  const indexBodies: string[] = [];
  const state = { failViews: null as null | ((n: number) => boolean) };
  const server = http.createServer((req, res) => {
    const view = /\/events\/view\/([0-9a-f-]{36})/.exec(req.url ?? "");
    if (view) {
      views.push(view[1]);
      if (state.failViews?.(views.length)) {
        res.writeHead(500, { "content-type": "application/json" }).end('{"name":"boom","message":"remote broke"}');
        return;
      }
    }
    if (req.url?.includes("events/index")) {
      let text = "";
      req.on("data", (chunk: Buffer) => (text += chunk.toString()));
      req.on("end", () => indexBodies.push(text));
    }
    const up = http.request(new URL(req.url ?? "/", target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  return {
    views,
    indexBodies,
    state,
    listen: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}/misp/`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  [a, b] = await Promise.all([side("sync-a", "Alpha Org", "Bravo Org"), side("sync-b", "Bravo Org", "Alpha Org")]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.app.close(), b?.app.close()]);
});

describe("pull", { timeout: 120_000 }, () => {
  const e1 = uuid();
  const e2 = uuid();
  const e3 = uuid();
  const e4 = uuid();
  let pullOrg: number;
  let serverId: number;

  it("tests the connection: version, sync permission and the remote user's organisation", async () => {
    pullOrg = await createOrganisation(a.app, a.admin, "Alpha pulls");
    const server = await addServer(a, b, { org_id: pullOrg }, `${b.app.url}/misp/`);
    serverId = server.id;
    const res = await call(a.app, "POST", `/servers/${serverId}/test-connection`, a.admin.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ ok: true, perm_sync: true, organisation: { name: "Alpha Org (sync)" }, problems: [] });
    expect(res.body.version).toMatch(/^\d+\.\d+/);
  });

  it("previews and pulls what the rules take, keeping uuid and Orgc, downgrading distributions as MISP does", async () => {
    const ts = now() - 100;
    const object = {
      name: "domain-ip", "meta-category": "network", uuid: uuid(), distribution: "2", timestamp: String(ts),
      Attribute: [{ uuid: uuid(), type: "domain", category: "Network activity", object_relation: "domain", value: "object.example.org", distribution: "1", timestamp: String(ts) }],
    };
    await importEvent(b, {
      uuid: e1, info: "community event", distribution: 3, timestamp: ts,
      attributes: [{ value: "one.example.org" }, { value: "two.example.org", distribution: 2 }, { value: "three.example.org", distribution: 1 }],
      extra: { Object: [object] },
    });
    await importEvent(b, { uuid: e2, info: "this community", distribution: 1, timestamp: ts + 1 });
    await importEvent(b, { uuid: e3, info: "Bravo only", distribution: 0, timestamp: ts + 2 });
    await importEvent(b, { uuid: e4, info: "not published", distribution: 3, published: false, timestamp: ts + 3 });

    const preview = await call(a.app, "POST", `/servers/${serverId}/preview-pull`, a.admin.token, {});
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.events.map((e: { uuid: string }) => e.uuid)).toEqual([e1, e2]);
    expect(preview.body.events[0]).toMatchObject({ orgc: "Bravo Org", stored_timestamp: null, tags: ["tlp:green"] });
    expect((await getEvent(a, e1)).status).toBe(404);

    const done = await run(a, `/servers/${serverId}/pull`);
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect(done.result).toMatchObject({ taken: 2, events_created: 2, attributes_created: 5, rejected: 0, cursor: ts + 1 });

    const pulled = await getEvent(a, e1);
    expect(pulled.status).toBe(200);
    expect(pulled.body).toMatchObject({ uuid: e1, distribution: 3, org_id: pullOrg, orgc: { name: "Bravo Org" }, attribute_count: 3, published: true });
    // Community only becomes your organisation only, connected communities community only; all communities and inherit stay.
    const exported = (await call(a.app, "GET", `/events/${e1}/export`, a.admin.token)).body.Event;
    const distributionOf = (list: { value: string; distribution: string }[]) => Object.fromEntries(list.map((x) => [x.value, String(x.distribution)]));
    expect(distributionOf(exported.Attribute)).toEqual({ "one.example.org": "5", "two.example.org": "1", "three.example.org": "0" });
    expect(exported.Object).toHaveLength(1);
    expect(String(exported.Object[0].distribution)).toBe("1");
    expect(distributionOf(exported.Object[0].Attribute)).toEqual({ "object.example.org": "0" });
    expect((await getEvent(a, e2)).body).toMatchObject({ distribution: 0, orgc: { name: "Bravo Org" } });
    expect((await getEvent(a, e3)).status).toBe(404);
    expect((await getEvent(a, e4)).status).toBe(404);
    expect((await call(a.app, "GET", `/servers/${serverId}`, a.admin.token)).body.pull_cursor).toBe(ts + 1);
  });

  it("pulls incrementally: only what changed since the cursor is fetched again", async () => {
    const p = proxy(b.app.url);
    const url = await p.listen();
    try {
      await call(a.app, "PATCH", `/servers/${serverId}`, a.admin.token, { url });
      // A new URL starts from the beginning; the events stored here as new as the remote's are not fetched.
      await importEvent(b, { uuid: e1, info: "community event, edited", distribution: 3, timestamp: now(), attributes: [{ value: "one.example.org" }, { value: "two.example.org" }, { value: "three.example.org" }, { value: "four.example.org" }] });
      const done = await run(a, `/servers/${serverId}/pull`);
      expect(done.status).toBe("succeeded");
      expect(done.result).toMatchObject({ taken: 2, events_updated: 1, events_unchanged: 1 });
      expect(p.views).toEqual([e1]);
      expect((await getEvent(a, e1)).body).toMatchObject({ info: "community event, edited", attribute_count: 4 });

      const again = await run(a, `/servers/${serverId}/pull`);
      expect(again.result).toMatchObject({ events_created: 0, events_updated: 0 });
      expect(p.views).toEqual([e1]);
      // The remote is asked for what changed since the cursor, not for its whole index.
      expect(JSON.parse(p.indexBodies[0])).not.toHaveProperty("timestamp");
      expect(JSON.parse(p.indexBodies.at(-1)!)).toMatchObject({ timestamp: done.result.cursor });
    } finally {
      await call(a.app, "PATCH", `/servers/${serverId}`, a.admin.token, { url: `${b.app.url}/misp/` });
      await p.close();
    }
  });

  it("resumes an interrupted pull from its cursor without fetching a committed event twice", async () => {
    const base = now() + 10;
    const fresh = [uuid(), uuid(), uuid()];
    for (const [i, id] of fresh.entries()) await importEvent(b, { uuid: id, info: `batch ${i}`, distribution: 3, timestamp: base + i });
    const p = proxy(b.app.url);
    const url = await p.listen();
    try {
      const server = await addServer(a, b, { org_id: pullOrg, pull_rules: { since: base } }, url);
      // The second event's fetch fails once: the attempt fails, the run's next attempt resumes.
      p.state.failViews = (n) => n === 2;
      const done = await run(a, `/servers/${server.id}/pull`);
      expect(done.status, JSON.stringify(done)).toBe("succeeded");
      expect(done.attempts).toBe(2);
      expect(p.views).toEqual([fresh[0], fresh[1], fresh[1], fresh[2]]);
      for (const id of fresh) expect((await getEvent(a, id)).body).toMatchObject({ uuid: id, attribute_count: 1 });
      expect((await call(a.app, "GET", `/servers/${server.id}`, a.admin.token)).body.pull_cursor).toBe(base + 2);
    } finally {
      await p.close();
    }
  });

  it("pulls one event by uuid; an unknown one is 404", async () => {
    const id = uuid();
    await importEvent(b, { uuid: id, info: "unpublished, pulled by hand", distribution: 3, published: false });
    const res = await call(a.app, "POST", `/servers/${serverId}/events/${id}/pull`, a.admin.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ events_created: 1 });
    expect((await getEvent(a, id)).body).toMatchObject({ published: false, orgc: { name: "Bravo Org" } });
    expect((await call(a.app, "POST", `/servers/${serverId}/events/${uuid()}/pull`, a.admin.token)).status).toBe(404);
  });

  it("adds the puller's organisation to a pulled sharing group that does not list it, as MISP's pull (captureSG with a server); again when a newer copy comes", async () => {
    // On B the group lists B's organisation standing for Alpha, not A's pulling organisation: MISP's pull adds that one here.
    const [standIn] = (await b.app.booted.ctx.db.pool.query("SELECT id FROM organisations WHERE name = $1", [b.syncOrgName])).rows;
    const sg = await call(b.app, "POST", "/sharing_groups/", b.admin.token, { name: `bravo-and-alpha-${uuid().slice(0, 8)}`, roaming: true, sharing_group_orgs: [{ org_id: standIn.id }] });
    expect(sg.status, sg.text).toBe(201);
    const id = uuid();
    const grouped = (timestamp: number) => importEvent(b, { uuid: id, info: "shared with a group", distribution: 4, timestamp, extra: { SharingGroup: { uuid: sg.body.uuid, name: sg.body.name } } });
    await grouped(now() - 5);
    const pulled = await call(a.app, "POST", `/servers/${serverId}/events/${id}/pull`, a.admin.token);
    expect(pulled.body, pulled.text).toMatchObject({ events_created: 1, rejected: 0 });
    const groupHere = async () => {
      const list = await call(a.app, "GET", "/sharing_groups/?limit=1000", a.admin.token);
      return list.body.find((g: { uuid: string }) => g.uuid === sg.body.uuid) as { id: number; sharing_group_orgs: { org_id: number; extend: boolean }[] };
    };
    const here = await groupHere();
    expect(here.sharing_group_orgs).toContainEqual(expect.objectContaining({ org_id: pullOrg, extend: false }));
    expect((await getEvent(a, id)).body).toMatchObject({ distribution: 4, sharing_group_id: here.id });
    // A member now: the pulling organisation's users see the group.
    const reader = await createUser(a.app, a.admin, ["sharing_groups:read"], pullOrg);
    expect((await call(a.app, "GET", `/sharing_groups/${here.id}`, reader.token)).status).toBe(200);
    const [created] = (await a.app.booted.ctx.db.pool.query("SELECT metadata FROM audit_logs WHERE action = 'sharing_group.created' AND resource_id = $1", [here.id])).rows;
    expect(created.metadata).toMatchObject({ uuid: sg.body.uuid, via: "import" });

    // Removed here, then a newer copy of the group with a newer event: the pull adds it again, not extending.
    expect((await call(a.app, "DELETE", `/sharing_groups/${here.id}/organisations/${pullOrg}`, a.admin.token)).status).toBe(204);
    expect((await groupHere()).sharing_group_orgs.map((m) => m.org_id)).not.toContain(pullOrg);
    // MISP's modified has whole seconds: a change within the second of the copy pulled is no newer copy.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(b.app, "PATCH", `/sharing_groups/${sg.body.id}`, b.admin.token, { description: "changed on Bravo" })).status).toBe(200);
    await grouped(now() + 5);
    const again = await call(a.app, "POST", `/servers/${serverId}/events/${id}/pull`, a.admin.token);
    expect(again.body, again.text).toMatchObject({ events_updated: 1, rejected: 0 });
    const updated = await groupHere();
    expect(updated).toMatchObject({ description: "changed on Bravo" });
    expect(updated.sharing_group_orgs).toContainEqual(expect.objectContaining({ org_id: pullOrg, extend: false }));
  });

  it("pulls the other way: B from A", async () => {
    const id = uuid();
    await importEvent(a, { uuid: id, info: "from Alpha", distribution: 2 });
    const server = await addServer(b, a);
    const done = await run(b, `/servers/${server.id}/pull`);
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect((await getEvent(b, id)).body).toMatchObject({ uuid: id, distribution: 1, orgc: { name: "Alpha Org" } });
  });

  it("keeps the remote's distributions from a server the administrator marked internal, which no one else may mark", async () => {
    const id = uuid();
    await importEvent(b, { uuid: id, info: "internal community", distribution: 1, attributes: [{ value: "internal.example.org", distribution: 2 }] });
    const server = await addServer(a, b, { org_id: pullOrg, internal: true });
    expect(server).toMatchObject({ internal: true });
    const res = await call(a.app, "POST", `/servers/${server.id}/events/${id}/pull`, a.admin.token);
    expect(res.status, res.text).toBe(200);
    expect((await getEvent(a, id)).body).toMatchObject({ distribution: 1 });
    const exported = (await call(a.app, "GET", `/events/${id}/export`, a.admin.token)).body.Event;
    expect(String(exported.Attribute[0].distribution)).toBe("2");

    // An organisation's own server manager may neither mark a server internal nor repoint an internal one.
    const manager = await createUser(a.app, a.admin, ["servers:read", "servers:create", "servers:update"], pullOrg);
    const marked = await call(a.app, "POST", "/servers/", manager.token, { name: "mine", url: `${b.app.url}/misp/`, authkey: b.syncKey, internal: true });
    expect(marked.status, marked.text).toBe(422);
    expect(marked.body.code).toBe("validation_error");
    const repointed = await call(a.app, "PATCH", `/servers/${server.id}`, manager.token, { url: "https://misp.example.org/" });
    expect(repointed.status, repointed.text).toBe(422);
    const renamed = await call(a.app, "PATCH", `/servers/${server.id}`, manager.token, { name: "still internal" });
    expect(renamed.body).toMatchObject({ name: "still internal", internal: true });
  });
});

describe("push", { timeout: 120_000 }, () => {
  it("sends only what the remote organisation may receive, downgraded as MISP does and capped, and updates with events/edit", async () => {
    const sg = await call(a.app, "POST", "/sharing_groups/", a.admin.token, { name: `alpha-only-${uuid().slice(0, 8)}` });
    expect(sg.status, sg.text).toBe(201);
    const shared = uuid();
    const orgOnly = uuid();
    const grouped = uuid();
    const connected = uuid();
    const community = uuid();
    await importEvent(a, {
      uuid: shared, info: "push me", distribution: 3, timestamp: now() - 60,
      attributes: [{ value: "pushed.example.org" }, { value: "stays-home.example.org", distribution: 0 }, { value: "community-only.example.org", distribution: 1 }],
    });
    await importEvent(a, { uuid: orgOnly, info: "organisation only", distribution: 0 });
    await importEvent(a, { uuid: community, info: "community only", distribution: 1 });
    await importEvent(a, { uuid: grouped, info: "sharing group", distribution: 4, extra: { SharingGroup: { uuid: sg.body.uuid, name: sg.body.name } } });
    await importEvent(a, { uuid: connected, info: "connected communities", distribution: 2 });
    expect((await getEvent(a, grouped)).body.distribution).toBe(4);

    const server = await addServer(a, b, { push_rules: { max_distribution: 1 }, push_enabled: true });
    const done = await run(a, `/servers/${server.id}/push`);
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect(done.result.refused).toBeGreaterThanOrEqual(1);

    const there = await getEvent(b, shared);
    expect(there.body).toMatchObject({ uuid: shared, orgc: { name: "Alpha Org" }, distribution: 1, attribute_count: 1 });
    const attrs = await call(b.app, "GET", `/events/${shared}/export`, b.admin.token);
    expect(attrs.text).toContain("pushed.example.org");
    expect(attrs.text).not.toContain("stays-home.example.org");
    expect(attrs.text).not.toContain("community-only.example.org");
    expect((await getEvent(b, orgOnly)).status).toBe(404);
    expect((await getEvent(b, community)).status).toBe(404);
    expect((await getEvent(b, grouped)).status).toBe(404);
    expect((await getEvent(b, connected)).body.distribution).toBe(1);
    // Without a cap too: connected communities arrive as community only.
    const uncapped = await addServer(a, b);
    const wide = uuid();
    await importEvent(a, { uuid: wide, info: "connected, uncapped", distribution: 2, attributes: [{ value: "wide.example.org", distribution: 2 }] });
    expect((await call(a.app, "POST", `/servers/${uncapped.id}/events/${wide}/push`, a.admin.token)).body).toMatchObject({ events_created: 1 });
    expect((await getEvent(b, wide)).body.distribution).toBe(1);
    expect(String((await call(b.app, "GET", `/events/${wide}/export`, b.admin.token)).body.Event.Attribute[0].distribution)).toBe("1");

    // The remote's events/edit keeps the pushed event's timestamp, as MISP does.
    const edited = now();
    await importEvent(a, { uuid: shared, info: "push me, edited", distribution: 3, timestamp: edited, attributes: [{ value: "pushed.example.org" }, { value: "pushed-later.example.org" }] });
    const one = await call(a.app, "POST", `/servers/${server.id}/events/${shared}/push`, a.admin.token);
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ events_updated: 1 });
    expect((await getEvent(b, shared)).body).toMatchObject({ info: "push me, edited", attribute_count: 2, timestamp: edited });
    const unchanged = await call(a.app, "POST", `/servers/${server.id}/events/${shared}/push`, a.admin.token);
    expect(unchanged.body).toMatchObject({ events_unchanged: 1, events_updated: 0 });
    const refused = await call(a.app, "POST", `/servers/${server.id}/events/${orgOnly}/push`, a.admin.token);
    expect(refused.body).toMatchObject({ refused: 1, events_created: 0 });
    expect((await getEvent(b, orgOnly)).status).toBe(404);
    // An event of another organisation here is not the server organisation's to push.
    const foreign = await call(a.app, "POST", `/servers/${server.id}/events/${connected}/push`, a.admin.token);
    expect(foreign.status).toBe(200);
    const notOurs = (await call(a.app, "GET", "/events/?deleted=false&size=100", a.admin.token)).body.items.find((e: { org_id: number }) => e.org_id !== a.admin.orgId);
    expect((await call(a.app, "POST", `/servers/${server.id}/events/${notOurs.uuid}/push`, a.admin.token)).status).toBe(404);
  });
});

describe("push of a sharing group", { timeout: 120_000 }, () => {
  it("goes only when the remote organisation is a member and the group is roaming (set by PATCH; one that is not lists this instance alone, as MISP)", async () => {
    const me = await b.app.http.request("GET", "/misp/users/view/me", { authorization: b.syncKey, headers: { accept: "application/json" } });
    expect(me.status, me.text).toBe(200);
    const remoteOrgUuid = String(me.body.Organisation?.uuid ?? me.body.User?.Organisation?.uuid);
    expect(remoteOrgUuid).toMatch(/^[0-9a-f-]{36}$/);
    // The remote organisation known here by its uuid, as a pull would have created it (the pull of a sharing group above did).
    const [known] = (await a.app.booted.ctx.db.pool.query("SELECT id FROM organisations WHERE uuid = $1", [remoteOrgUuid])).rows;
    const org = known ? { body: known } : await call(a.app, "POST", "/organisations/", a.admin.token, { name: `remote-${uuid().slice(0, 8)}`, uuid: remoteOrgUuid });
    expect(org.body.id).toEqual(expect.any(Number));
    const sg = await call(a.app, "POST", "/sharing_groups/", a.admin.token, { name: `with-remote-${uuid().slice(0, 8)}` });
    expect(sg.status, sg.text).toBe(201);
    expect(sg.body.roaming).toBe(false);
    const member = await call(a.app, "POST", `/sharing_groups/${sg.body.id}/organisations`, a.admin.token, { org_id: org.body.id });
    expect([200, 201], member.text).toContain(member.status);
    const grouped = uuid();
    await importEvent(a, { uuid: grouped, info: "sharing group with the remote", distribution: 4, extra: { SharingGroup: { uuid: sg.body.uuid, name: sg.body.name } } });
    expect((await getEvent(a, grouped)).body.distribution).toBe(4);
    const server = await addServer(a, b);

    const home = await call(a.app, "POST", `/servers/${server.id}/events/${grouped}/push`, a.admin.token);
    expect(home.status, home.text).toBe(200);
    expect(home.body).toMatchObject({ refused: 1, events_created: 0 });
    expect((await getEvent(b, grouped)).status).toBe(404);
    const servers = async () => {
      const view = await a.app.http.request("GET", `/misp/events/view/${grouped}`, { authorization: `Bearer ${a.admin.token}`, headers: { accept: "application/json" } });
      expect(view.status, view.text).toBe(200);
      return view.body.Event.SharingGroup.SharingGroupServer.map((s: { server_id: string }) => s.server_id);
    };
    expect(await servers()).toEqual(["0"]);

    // The owner makes the group roaming: now it goes.
    const roamingOn = await call(a.app, "PATCH", `/sharing_groups/${sg.body.id}`, a.admin.token, { roaming: true });
    expect(roamingOn.status, roamingOn.text).toBe(200);
    expect(roamingOn.body.roaming).toBe(true);
    expect(await servers()).toEqual([]);
    const roaming = await call(a.app, "POST", `/servers/${server.id}/events/${grouped}/push`, a.admin.token);
    expect(roaming.body, roaming.text).toMatchObject({ refused: 0, events_created: 1 });
    expect((await call(b.app, "GET", `/events/${grouped}`, b.admin.token)).body.distribution).toBe(4);
  });
});

describe("the API key", () => {
  it("is in no answer, error or stored column, and a refused key is reported as such", async () => {
    const wrong = `wrong-${crypto.randomBytes(16).toString("hex")}`;
    const res = await call(a.app, "POST", "/servers/", a.admin.token, { name: "wrong key", url: `${b.app.url}/misp/`, authkey: wrong });
    expect(res.status).toBe(201);
    expect(res.body.authkey_set).toBe(true);
    const test = await call(a.app, "POST", `/servers/${res.body.id}/test-connection`, a.admin.token);
    expect(test.body.ok).toBe(false);
    expect(test.body.problems.join(" ")).toMatch(/refused the API key/);
    const dead = await call(a.app, "POST", "/servers/", a.admin.token, { name: "nobody there", url: "http://127.0.0.1:9/misp/", authkey: wrong });
    const unreachable = await call(a.app, "POST", `/servers/${dead.body.id}/test-connection`, a.admin.token);
    expect(unreachable.body.problems.join(" ")).toMatch(/cannot reach/);
    const preview = await call(a.app, "POST", `/servers/${dead.body.id}/preview-pull`, a.admin.token, {});
    expect(preview.status).toBe(503);
    const internal = await call(a.app, "POST", "/servers/", a.admin.token, { name: "internal", url: "http://10.255.255.1/misp/", authkey: wrong });
    const refused = await call(a.app, "POST", `/servers/${internal.body.id}/test-connection`, a.admin.token);
    expect(refused.body.problems.join(" ")).toMatch(/private or reserved/);

    const client = new pg.Client({ connectionString: a.app.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ authkey_cipher: string }>("SELECT authkey_cipher FROM servers");
      expect(rows.length).toBeGreaterThan(3);
      for (const r of rows) {
        expect(r.authkey_cipher).toMatch(/^v1:/);
        for (const k of [a.syncKey, b.syncKey, wrong]) expect(r.authkey_cipher).not.toContain(k);
      }
    } finally {
      await client.end();
    }
    const all = answers.join("\n");
    for (const k of [a.syncKey, b.syncKey, wrong]) expect(all).not.toContain(k);
    const listed = await call(a.app, "GET", "/servers/", a.admin.token);
    expect(listed.text).not.toMatch(/"authkey"\s*:/);
  });
});

describe("a hostile remote", () => {
  it("gets no key through a redirect, and a huge or non-JSON answer is a clear 503", async () => {
    const elsewhere: string[] = [];
    const thief = http.createServer((req, res) => {
      elsewhere.push(String(req.headers.authorization ?? ""));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => thief.listen(0, "127.0.0.1", resolve));
    const thiefUrl = `http://127.0.0.1:${(thief.address() as { port: number }).port}`;
    const hostileMode = { huge: true };
    const hostile = http.createServer((req, res) => {
      if (req.url?.includes("getVersion")) res.writeHead(302, { location: `${thiefUrl}/misp/servers/getVersion` }).end();
      else if (req.url?.includes("events/index") && hostileMode.huge) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`[${'"x",'.repeat(5 << 20)}"x"]`);
      } else res.writeHead(200, { "content-type": "text/html" }).end("<html>not MISP</html>");
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    try {
      const key = `hostile-${crypto.randomBytes(12).toString("hex")}`;
      const created = await call(a.app, "POST", "/servers/", a.admin.token, { name: "hostile", url: `http://127.0.0.1:${(hostile.address() as { port: number }).port}/misp/`, authkey: key });
      const test = await call(a.app, "POST", `/servers/${created.body.id}/test-connection`, a.admin.token);
      expect(test.body.ok).toBe(false);
      expect(test.body.problems.join(" ")).toMatch(/redirect/);
      expect(elsewhere).toEqual([]);
      const huge = await call(a.app, "POST", `/servers/${created.body.id}/preview-pull`, a.admin.token, {});
      expect(huge.status, huge.text).toBe(503);
      expect(huge.body.detail).toMatch(/more than the \d+ bytes allowed/);
      hostileMode.huge = false;
      const html = await call(a.app, "POST", `/servers/${created.body.id}/preview-pull`, a.admin.token, {});
      expect(html.status).toBe(503);
      expect(html.body.detail).toMatch(/not JSON/);
      expect(answers.join("\n")).not.toContain(key);
    } finally {
      await new Promise((resolve) => hostile.close(resolve));
      await new Promise((resolve) => thief.close(resolve));
    }
  });
});

describe("hostile inputs", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["a file URL", { url: "file:///etc/passwd" }],
    ["a gopher URL", { url: "gopher://127.0.0.1:25/" }],
    ["credentials in the URL", { url: "http://user:secret@misp.example.org/" }],
    ["a URL that is no URL", { url: "not a url" }],
    ["a number for a name", { name: 42 }],
    ["a short key", { authkey: "x" }],
    ["rules of the wrong type", { pull_rules: "all" }],
    ["an unknown rule", { pull_rules: { everything: true } }],
    ["a distribution cap out of range", { push_rules: { max_distribution: 0 } }],
    ["an unknown field", { authkey_cipher: "v1:AAAA" }],
  ];
  it.each(cases)("refuses %s with 422 and the JSON error shape", async (_what, change) => {
    const res = await call(a.app, "POST", "/servers/", a.admin.token, { name: "hostile", url: "https://misp.example.org/", authkey: "k".repeat(40), ...change });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
  });

  it("refuses a huge body, a bad id and a bad event uuid with 4xx JSON", async () => {
    const huge = await call(a.app, "POST", "/servers/", a.admin.token, { name: "x".repeat(3 << 20), url: "https://misp.example.org/", authkey: "k".repeat(40) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBeTypeOf("string");
    expect((await call(a.app, "GET", "/servers/abc", a.admin.token)).status).toBe(422);
    const server = await addServer(a, b);
    const bad = await call(a.app, "POST", `/servers/${server.id}/events/not-a-uuid/pull`, a.admin.token);
    expect(bad.status, bad.text).toBe(422);
    expect((await call(a.app, "GET", "/servers/999999", a.admin.token)).status).toBe(404);
  });
});

describe("another organisation, schedules and GraphQL", { timeout: 120_000 }, () => {
  it("keeps a server to its organisation (404 elsewhere) and answers GraphQL as REST, without the key", async () => {
    const server = await addServer(a, b);
    const otherOrg = await createOrganisation(a.app, a.admin);
    const stranger = await createUser(a.app, a.admin, ["servers:read", "servers:update", "servers:delete", "servers:test", "servers:pull", "servers:push", "events:read", "events:create", "events:sync", "tasks:create"], otherOrg);
    for (const [method, path] of [["GET", `/servers/${server.id}`], ["PATCH", `/servers/${server.id}`], ["DELETE", `/servers/${server.id}`], ["POST", `/servers/${server.id}/test-connection`], ["POST", `/servers/${server.id}/pull`], ["POST", `/servers/${server.id}/push`]] as const) {
      const res = await call(a.app, method, path, stranger.token, method === "PATCH" ? { name: "taken" } : undefined);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
    }
    expect((await call(a.app, "GET", "/servers/", stranger.token)).body).toEqual([]);
    const scheduled = await call(a.app, "POST", "/tasks/schedule", stranger.token, { name: "pull hourly", task: "server_pull", kwargs: { server_id: server.id }, schedule_type: "interval", interval: { every: 1, period: "hours" } });
    expect(scheduled.status, scheduled.text).toBe(422);
    expect(scheduled.text).toContain("server_id");

    // The owner's schedule pulls (run now here: a schedule's first turn is an hour away).
    const mine = await call(a.app, "POST", "/tasks/schedule", a.admin.token, { name: "pull hourly", task: "server_pull", kwargs: { server_id: server.id }, schedule_type: "interval", interval: { every: 1, period: "hours" } });
    expect(mine.status, mine.text).toBe(201);
    const runNow = await call(a.app, "POST", `/tasks/scheduled/${mine.body.id}/run`, a.admin.token);
    expect(runNow.status, runNow.text).toBeLessThan(300);
    const ran = await finished(a, runNow.body.task_id ?? runNow.body.id);
    expect(ran.status, JSON.stringify(ran)).toBe("succeeded");
    expect(ran.result).toMatchObject({ server_id: server.id });

    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await a.app.http.graphql(query, variables, a.admin.token);
      answers.push(JSON.stringify(res.body));
      return res.body;
    };
    const created = await gql(
      `mutation($input: ServerFields!) { createServer(input: $input) { id name authkeySet pullRules { publishedOnly tags { include } } pushRules { maxDistribution } } }`,
      { input: { name: "over GraphQL", url: `${b.app.url}/misp/`, authkey: b.syncKey, pullRules: { tags: { include: ["tlp:green"] } }, pushRules: { maxDistribution: 2 } } },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createServer).toMatchObject({ authkeySet: true, pullRules: { publishedOnly: true, tags: { include: ["tlp:green"] } }, pushRules: { maxDistribution: 2 } });
    const id = created.data.createServer.id;
    const tested = await gql(`mutation($id: Int!) { testServerConnection(id: $id) { ok permSync organisationName problems } }`, { id });
    expect(tested.data.testServerConnection).toMatchObject({ ok: true, permSync: true, organisationName: "Alpha Org (sync)", problems: [] });
    await importEvent(b, { uuid: uuid(), info: "for the GraphQL preview", distribution: 3 });
    const preview = await gql(`query($id: Int!) { previewServerPull(id: $id, limit: 5) { total events { uuid orgc tags storedTimestamp } } }`, { id });
    expect(preview.errors).toBeUndefined();
    expect(preview.data.previewServerPull.total).toBeGreaterThan(0);
    expect(preview.data.previewServerPull.events.every((e: { tags: string[] }) => e.tags.includes("tlp:green"))).toBe(true);
    const bad = await gql(`mutation($input: ServerFields!) { createServer(input: $input) { id } }`, { input: { name: "bad", url: "file:///etc/passwd", authkey: "k".repeat(20) } });
    expect(bad.errors?.[0]?.extensions?.code).toBe("validation_error");
    const run = await gql(`mutation($id: Int!) { pullServer(id: $id) { id task status } }`, { id });
    expect(run.data.pullServer).toMatchObject({ task: "server_pull" });
    expect(JSON.stringify(await gql(`{ servers { total items { id url authkeySet } } }`))).not.toContain(b.syncKey);
  });
});

describe("the servers' MCP tools", { timeout: 120_000 }, () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  it("list, test, preview and pull through the MCP SDK client, as the REST routes do, within the organisation", async () => {
    const server = await addServer(a, b, { pull_rules: { since: now() - 5 } });
    const id = uuid();
    await importEvent(b, { uuid: id, info: "pulled over MCP", distribution: 3 });
    const mcp = await connectMcp(a.app.url, a.admin.token, clients);

    const listed = await toolOk(mcp, "list_servers", { size: 100 });
    expect(listed.servers.map((s: { id: number }) => s.id)).toContain(server.id);
    expect(JSON.stringify(listed)).not.toContain(b.syncKey);
    const tested = await toolOk(mcp, "test_server_connection", { server_id: server.id });
    expect(tested).toMatchObject({ ok: true, perm_sync: true, organisation: { name: "Alpha Org (sync)" } });
    const preview = await toolOk(mcp, "preview_server_pull", { server_id: server.id, limit: 10 });
    expect(preview.events.map((e: { uuid: string }) => e.uuid)).toContain(id);
    expect((await getEvent(a, id)).status).toBe(404);
    const started = await toolOk(mcp, "pull_server", { server_id: server.id });
    expect(started.task).toMatchObject({ name: "server_pull" });
    expect((await finished(a, started.task.id)).status).toBe("succeeded");
    expect((await getEvent(a, id)).body).toMatchObject({ uuid: id, orgc: { name: "Bravo Org" } });

    // Hostile arguments and another organisation's caller: tool errors, never a crash.
    for (const bad of [0, -1, 2_147_483_648, "1", null]) await toolRefused(mcp, "test_server_connection", { server_id: bad });
    await toolRefused(mcp, "preview_server_pull", { server_id: server.id, limit: 100_000 });
    expect(await toolRefused(mcp, "pull_server", { server_id: 2_147_483_647 })).toMatch(/not_found|not found/i);
    const otherOrg = await createOrganisation(a.app, a.admin);
    const stranger = await createUser(a.app, a.admin, ["servers:read", "servers:test", "servers:pull", "events:read", "events:create", "events:sync", "mcp:*"], otherOrg);
    const theirs = await connectMcp(a.app.url, stranger.token, clients);
    expect((await toolOk(theirs, "list_servers", {})).servers).toEqual([]);
    for (const tool of ["test_server_connection", "preview_server_pull", "pull_server"]) expect(await toolRefused(theirs, tool, { server_id: server.id })).toMatch(/not_found|not found/i);
    // Without servers:* the tools are refused before anything is looked up.
    const noServers = await createUser(a.app, a.admin, ["events:read", "mcp:*"]);
    const plain = await connectMcp(a.app.url, noServers.token, clients);
    expect(await toolRefused(plain, "list_servers", {})).toMatch(/insufficient_scope|scope/i);
  });
});
