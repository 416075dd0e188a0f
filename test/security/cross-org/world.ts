/**
 * The world of the cross-organisation matrix: the site administrator, organisations A and B with an
 * org admin (role 2), a user (role 3) and a read-only user (role 4) each, B's narrow API key, and one
 * of everything organisation A can own. B's callers aim every request at A's things; the site
 * administrator (or A's own user, for routes about the caller) sends the same request to prove it
 * is valid, so that B's 404 is a refusal and not a malformed request.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { grantedByAll } from "../../../src/auth/scopes.ts";
import type { TestApp } from "../../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../../support/fixtures.ts";
import { eventually } from "../../support/process.ts";
import { settled } from "../../support/settled.ts";

/** The callers of the matrix: B's four, each aiming at A's resources. */
export const B_ACTORS = ["bAdmin", "bUser", "bRead", "bKey"] as const;
export type BActor = (typeof B_ACTORS)[number];
/** Who proves a request valid: the site administrator, or A's own user for routes about the caller. */
export type Validator = "site" | "aAdmin" | "aUser";
export type Actor = BActor | Validator;

/** The narrow key: B's user's, reading events, attributes and hunts only. */
export const NARROW_KEY_SCOPES = ["events:read", "attributes:read", "hunts:read"];

export interface Item {
  uuid: string;
  value: string;
}

/** An event report; its content holds a word found nowhere else. */
export interface Report {
  uuid: string;
  name: string;
  content: string;
}

/** Everything of organisation A a request can name. */
export interface ATargets {
  org: { id: number; uuid: string; name: string };
  /** Distribution 0, with two attributes, an object and a tag; sighted by A. */
  privateEvent: { uuid: string; info: string };
  /** In the private event; its value also sits in the shared event's private attribute (a correlation of A's). */
  /** Its comment: MISP's restSearch `comment` filter aims at it. */
  privateAttribute: Item & { comment: string };
  /** In the private event; its value (public) also sits in the shared event and in B's event. */
  privateAttribute2: Item;
  privateObject: { uuid: string; attribute: Item };
  /** Distribution 3: B reads it, but not its distribution-0 attribute and object. */
  sharedEvent: { uuid: string; info: string };
  sharedAttribute: Item;
  sharedPrivateAttribute: Item;
  /** Distribution 0 in the shared event: an address inside a network of B's event (a cidr pair B may not see). */
  sharedHiddenIp: Item;
  sharedPrivateObject: { uuid: string; attribute: Item };
  sharedObject: { uuid: string; attribute: Item };
  /** An event report of the private event (distribution 5: the event's own). */
  privateReport: Report;
  /** In the shared event: distribution 5 (B reads it) and distribution 0 (B may not, nor find its text in search). */
  sharedReport: Report;
  sharedPrivateReport: Report;
  /** On the private event and the private attribute. Tag definitions are instance-wide. */
  tag: { id: number; name: string };
  sightingSource: string;
  /** A's user's hunt, run once (history and cached results). */
  hunt: { id: number; name: string };
  /** A's user's saved export (json of A's private attribute), completed. */
  export: { id: number; name: string };
  /** A's org admin's hunt, run by the schedule. */
  adminHunt: { id: number; name: string };
  /** A's MISP network feed on the loopback server, with a secret header. */
  networkFeed: { id: number; name: string; url: string };
  secret: string;
  /** A's local csv feed from an upload (fetched once: its event has distribution 0). */
  localFeed: { id: number; name: string; eventUuid: string; value: string };
  uploadKey: string;
  /** A's user's API key. */
  apiKey: { id: number; name: string; token: string };
  /** A's org admin's run_hunt schedule (disabled) and its run. */
  schedule: { id: string; name: string };
  taskRun: { id: string };
  /** A run of A's org admin that is still running (no job: nothing picks it up), for the lists of active runs. */
  activeRun: { id: string };
  /** A's user's notification (their followed private event changed). */
  notification: { id: number };
  savedSearch: string;
  /** A's sharing group (A alone a member): B neither sees it nor changes it. */
  sharingGroup: { id: number; name: string };
}

/** Instance-wide things the routes name (not A's). */
export interface Shared {
  galaxy: { id: number; uuid: string };
  exclusionId: number;
  rebuildId: number;
}

export interface FeedServer {
  url: string;
  hits: { path: string; authorization?: string }[];
  routes: Map<string, { type: string; body: string }>;
  close(): Promise<void>;
}

export interface CrossOrgWorld {
  app: TestApp;
  tag: string;
  site: TestUser;
  users: Record<"aAdmin" | "aUser" | "aRead" | "bAdmin" | "bUser" | "bRead", TestUser>;
  orgB: { id: number; uuid: string; name: string };
  bKey: { id: number; token: string };
  a: ATargets;
  shared: Shared;
  /** B's own event (distribution 3; its value correlates with A's shared attribute). */
  bEvent: { uuid: string; network: Item };
  /** Strings of A's that no answer to B may contain (lower case). */
  privateStrings: string[];
  server: FeedServer;
  unique(prefix: string): string;
  q<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The Authorization header of an actor. */
  credential(actor: Actor): string;
  /** Whether the actor holds every scope (role ∩ key). */
  holds(actor: Actor, scopes: readonly string[]): boolean;
  /** Calls the API as an actor and throws unless the answer is 2xx (world building and throwaways). */
  call(actor: Actor | TestUser, method: string, path: string, json?: unknown): Promise<any>;
  /** A's throwaways for validators' destructive requests, created when asked. */
  throwaway: Throwaways;
}

export interface Throwaways {
  event(): Promise<string>;
  attribute(): Promise<string>;
  object(): Promise<string>;
  hunt(run?: boolean): Promise<number>;
  /** A's user's export, completed. */
  export(): Promise<number>;
  feed(): Promise<number>;
  schedule(): Promise<string>;
  apiKey(): Promise<number>;
  notification(): Promise<number>;
  user(): Promise<number>;
  role(): Promise<number>;
  tag(): Promise<number>;
  exclusion(): Promise<number>;
  /** A report in A's private event. */
  report(): Promise<string>;
  sharingGroup(): Promise<number>;
}

const uuid = () => crypto.randomUUID();

async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, { type: string; body: string }>();
  const hits: FeedServer["hits"] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? "", authorization: req.headers.authorization });
    const route = routes.get(req.url ?? "");
    if (route) res.writeHead(200, { "content-type": route.type }).end(route.body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    routes,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const attr = (i: Item, distribution: number, extra: Record<string, unknown> = {}) => ({
  uuid: i.uuid, type: "domain", category: "Network activity", value: i.value, distribution: String(distribution), timestamp: "1700000000", to_ids: true, ...extra,
});

export async function buildWorld(app: TestApp): Promise<CrossOrgWorld> {
  const t = crypto.randomBytes(4).toString("hex");
  const item = (name: string): Item => ({ uuid: uuid(), value: `${name}-${t}.example.org` });
  const site = await loginAdmin(app);
  const orgIdA = await createOrganisation(app, site, `Organisation A ${t}`);
  const orgIdB = await createOrganisation(app, site, `Organisation B ${t}`);
  const [aAdmin, aUser, aRead, bAdmin, bUser, bRead] = await Promise.all([
    createUser(app, site, 2, orgIdA), createUser(app, site, 3, orgIdA), createUser(app, site, 4, orgIdA),
    createUser(app, site, 2, orgIdB), createUser(app, site, 3, orgIdB), createUser(app, site, 4, orgIdB),
  ]);
  const users = { aAdmin, aUser, aRead, bAdmin, bUser, bRead };
  const server = await startFeedServer();

  const userOf = (actor: Actor | TestUser): TestUser => (typeof actor === "string" ? (actor === "site" ? site : actor === "bKey" ? bUser : users[actor]) : actor);
  let bKeyToken = "";
  const credential = (actor: Actor) => `Bearer ${actor === "bKey" ? bKeyToken : userOf(actor).token}`;
  const call = async (actor: Actor | TestUser, method: string, path: string, json?: unknown) => {
    const authorization = typeof actor === "string" ? credential(actor) : `Bearer ${actor.token}`;
    const res = await app.http.request(method, path, { authorization, json });
    if (res.status >= 300) throw new Error(`cross-org world: ${method} ${path}: ${res.status} ${res.text.slice(0, 500)}`);
    return res.body;
  };
  const q = async <T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> => (await app.booted.ctx.db.pool.query(sql, params)).rows;

  const roleScopes = new Map<number, string[]>();
  for (const id of [1, 2, 3, 4]) roleScopes.set(id, (await call(site, "GET", `/roles/${id}`)).scopes);
  const bKey = await call(bUser, "POST", "/api-keys/", { name: `B narrow ${t}`, scopes: NARROW_KEY_SCOPES });
  bKeyToken = bKey.token;
  const grants = (actor: Actor): string[][] => {
    const roles = [roleScopes.get(userOf(actor).roleId)!];
    return actor === "bKey" ? [...roles, NARROW_KEY_SCOPES] : roles;
  };

  const org = async (id: number) => {
    const o = await call(site, "GET", `/organisations/${id}`);
    return { id, uuid: o.uuid as string, name: o.name as string };
  };
  const orgA = await org(orgIdA);
  const orgB = await org(orgIdB);

  // ---- A's events: followed by A's user before they exist (notifications), imported by A's user ----
  const privateEvent = { uuid: uuid(), info: `A private event ${t}` };
  const sharedEvent = { uuid: uuid(), info: `A shared event ${t}` };
  const privateAttribute = { ...item("corr"), comment: `a note of A ${t}` };
  const privateAttribute2 = { uuid: uuid(), value: `shared-${t}.example.org` };
  const privateObject = { uuid: uuid(), attribute: item("pobj") };
  const sharedAttribute = { uuid: uuid(), value: privateAttribute2.value };
  const sharedPrivateAttribute = { uuid: uuid(), value: privateAttribute.value };
  const sharedHiddenIp = { uuid: uuid(), value: `203.0.113.${100 + crypto.randomInt(100)}` };
  const sharedPrivateObject = { uuid: uuid(), attribute: item("spobj") };
  const sharedObject = { uuid: uuid(), attribute: item("sobj") };
  const report = (label: string): Report => ({ uuid: uuid(), name: `A ${label} report ${t}`, content: `# A ${label}\n\nword${label}${t} <script>alert(1)</script>` });
  const privateReport = report("private");
  const sharedReport = report("shared");
  const sharedPrivateReport = report("sharedprivate");
  const mispReport = (r: Report, distribution: number) => ({ uuid: r.uuid, name: r.name, content: r.content, distribution: String(distribution), timestamp: "1700000000", deleted: false });
  const tagName = `a-tag-${t}`;
  await call(aUser, "POST", "/settings/user/notifications", {
    follow: { events: [privateEvent.uuid], attributes: [privateAttribute.uuid], objects: [], organisations: [orgA.uuid] },
    email_notifications: false,
  });
  const savedSearch = `saved search of A ${t}`;
  await call(aUser, "POST", "/settings/user/explore", { saved_searches: [savedSearch] });
  const object = (o: { uuid: string; attribute: Item }, distribution: number) => ({
    uuid: o.uuid, name: "domain-ip", "meta-category": "network", distribution: String(distribution), timestamp: "1700000000",
    Attribute: [{ ...attr(o.attribute, 5), object_relation: "domain" }],
  });
  const event = (e: { uuid: string; info: string }, distribution: number, attributes: unknown[], objects: unknown[], tags: unknown[] = [], reports: unknown[] = []) => ({
    Event: {
      uuid: e.uuid, info: e.info, date: "2024-01-01", distribution: String(distribution), analysis: "0", threat_level_id: "2", timestamp: "1700000000", published: false, Tag: tags,
      Attribute: attributes, Object: objects, EventReport: reports,
    },
  });
  await call(aUser, "POST", "/events/import", event(privateEvent, 0, [attr(privateAttribute, 5, { Tag: [{ name: tagName }], comment: privateAttribute.comment }), attr(privateAttribute2, 5)], [object(privateObject, 5)], [{ name: tagName }], [mispReport(privateReport, 5)]));
  await call(
    aUser, "POST", "/events/import",
    event(sharedEvent, 3, [attr(sharedAttribute, 5), attr(sharedPrivateAttribute, 0), attr(sharedHiddenIp, 0, { type: "ip-dst" })], [object(sharedPrivateObject, 0), object(sharedObject, 5)], [], [mispReport(sharedReport, 5), mispReport(sharedPrivateReport, 0)]),
  );
  const bEvent = { uuid: uuid(), network: { uuid: uuid(), value: "203.0.113.0/24" } };
  await call(bUser, "POST", "/events/import", event({ uuid: bEvent.uuid, info: `B event ${t}` }, 3, [attr({ uuid: uuid(), value: sharedAttribute.value }, 5), attr(bEvent.network, 5, { type: "ip-dst" })], []));
  const tag = { id: (await q<{ id: number }>("SELECT id FROM tags WHERE name = $1", [tagName]))[0].id, name: tagName };
  const sightingSource = `seen by A ${t}`;
  await call(aUser, "POST", "/sightings/", { attribute_uuid: privateAttribute.uuid, source: sightingSource });
  await settled(app, 60_000);

  // ---- hunts ----
  const hunt = { id: 0, name: `A hunt ${t}` };
  hunt.id = (await call(aUser, "POST", "/hunts/", { name: hunt.name, query: `value:"${privateAttribute.value}"` })).id;
  await call(aUser, "POST", `/hunts/${hunt.id}/run`);
  const adminHunt = { id: 0, name: `A admin hunt ${t}` };
  adminHunt.id = (await call(aAdmin, "POST", "/hunts/", { name: adminHunt.name, query: `value:"${privateObject.attribute.value}"` })).id;

  // ---- exports: A's user's, completed; every actor may run several at once (the rows create many) ----
  await call(site, "POST", "/settings/runtime/exports", { max_active_per_user: 100 });
  const exportDone = async (id: number) =>
    eventually(async () => ((await call(site, "GET", `/exports/${id}`)).status === "completed" ? true : undefined), `export ${id} completed`, 60_000, 100);
  const savedExport = { id: 0, name: `A export ${t}` };
  savedExport.id = (await call(aUser, "POST", "/exports/", { name: savedExport.name, query: `value:"${privateAttribute.value}"`, format: "json" })).id;
  await exportDone(savedExport.id);

  // ---- feeds: loopback allowed; a MISP network feed with a secret header, a local csv feed ----
  await call(site, "POST", "/settings/runtime/feeds", { allowed_private_networks: ["127.0.0.1/32"], fetch_timeout_seconds: 10, max_download_bytes: 1 << 20 });
  const secret = `s3cret-of-A-${t}`;
  server.routes.set(`/a-${t}/manifest.json`, { type: "application/json", body: "{}" });
  const networkFeed = { id: 0, name: `A network feed ${t}`, url: `${server.url}/a-${t}/` };
  networkFeed.id = (await call(aAdmin, "POST", "/feeds/", {
    name: networkFeed.name, provider: `A provider ${t}`, url: networkFeed.url, source_format: "misp", input_source: "network", headers: { Authorization: `Bearer ${secret}` },
  })).id;
  const localValue = `feedval-${t}.example.org`;
  const uploadKey = await upload(app, aAdmin.token, `a-${t}.csv`, `${localValue}\n`, "csv");
  const localFeed = { id: 0, name: `A local feed ${t}`, eventUuid: "", value: localValue };
  const created = await call(aAdmin, "POST", "/feeds/", { name: localFeed.name, provider: `A provider ${t}`, url: uploadKey, source_format: "freetext", input_source: "local", distribution: 0 });
  localFeed.id = created.id;
  await finished(app, site, created.ingestion.id);
  localFeed.eventUuid = (await q<{ event_uuid: string }>("SELECT e.uuid::text AS event_uuid FROM events e JOIN attributes a ON a.event_id = e.id WHERE a.value = $1", [localValue]))[0].event_uuid;

  // ---- A's user's API key; A's org admin's schedule and its run ----
  const keyName = `A key ${t}`;
  const key = await call(aUser, "POST", "/api-keys/", { name: keyName, scopes: ["events:read"] });
  const schedule = { id: "", name: `A schedule ${t}` };
  schedule.id = (await call(aAdmin, "POST", "/tasks/schedule", {
    name: schedule.name, task: "run_hunt", schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs: { hunt_id: adminHunt.id }, enabled: false,
  })).id;
  const run = await call(aAdmin, "POST", `/tasks/scheduled/${schedule.id}/run`);
  const taskRun = { id: String(run.task_id ?? run.id) };
  await finished(app, site, taskRun.id);
  const activeRun = (await q<{ id: string }>(
    `INSERT INTO task_runs (task, kwargs, trigger, status, max_attempts, run_as_user_id, grant_scopes, started_at)
     VALUES ('run_hunt', $1, 'manual', 'running', 1, $2, '{*}', now()) RETURNING id::text`,
    [JSON.stringify({ hunt_id: adminHunt.id }), aAdmin.id],
  ))[0];

  // ---- A's user's notification: their followed private event changes ----
  await call(aAdmin, "PATCH", `/events/${privateEvent.uuid}`, { analysis: 1 });
  await settled(app, 60_000);
  const notification = await eventually(async () => (await q<{ id: number }>("SELECT id FROM notifications WHERE user_id = $1 ORDER BY id LIMIT 1", [aUser.id]))[0], "A's notification", 30_000, 100);

  // ---- instance-wide things the routes name ----
  const galaxyUuid = uuid();
  const galaxyId = (await q<{ id: number }>(`INSERT INTO galaxies (uuid, name, type, version) VALUES ($1, $2, 'cross-org', '1') RETURNING id`, [galaxyUuid, `Cross-org ${t}`]))[0].id;
  await q(`INSERT INTO galaxy_clusters (uuid, galaxy_id, type, value, tag_name, external_ids) VALUES ($1, $2, 'cross-org', 'Alpha - X0001', $3, $4)`, [uuid(), galaxyId, `misp-galaxy:cross-org="Alpha ${t}"`, ["X0001"]]);
  const exclusionId = (await call(site, "POST", "/correlations/exclusions", { value: `excluded-${t}.%` })).id;
  const rebuildId = (await q<{ id: number }>("INSERT INTO correlation_rebuilds (status) VALUES ('succeeded') RETURNING id"))[0].id;

  const sharingGroup = { id: 0, name: `A sharing group ${t}` };
  sharingGroup.id = (await call(aAdmin, "POST", "/sharing_groups/", { name: sharingGroup.name, description: `A's own ${t}` })).id;

  const a: ATargets = {
    org: orgA, privateEvent, privateAttribute, privateAttribute2, privateObject, sharedEvent, sharedAttribute, sharedPrivateAttribute, sharedHiddenIp, sharedPrivateObject, sharedObject,
    privateReport, sharedReport, sharedPrivateReport, tag, sightingSource, hunt, export: savedExport, adminHunt, networkFeed, secret, localFeed, uploadKey, apiKey: { id: key.id, name: keyName, token: key.token }, schedule, taskRun, activeRun,
    notification, savedSearch, sharingGroup,
  };
  const privateStrings = [
    privateEvent.uuid, privateEvent.info, privateAttribute.uuid, privateAttribute.value, privateAttribute2.uuid, privateObject.uuid, privateObject.attribute.uuid,
    privateObject.attribute.value, sharedPrivateAttribute.uuid, sharedHiddenIp.uuid, sharedHiddenIp.value, sharedPrivateObject.uuid, sharedPrivateObject.attribute.uuid, sharedPrivateObject.attribute.value,
    privateReport.uuid, privateReport.name, `wordprivate${t}`, sharedPrivateReport.uuid, sharedPrivateReport.name, `wordsharedprivate${t}`,
    sightingSource, hunt.name, savedExport.name, adminHunt.name, networkFeed.name, networkFeed.url, `a-${t}/`, secret, localFeed.name, localFeed.eventUuid, localValue, uploadKey,
    `provider ${t}`, keyName, key.token, schedule.id, schedule.name, taskRun.id, activeRun.id, savedSearch, aAdmin.email, aUser.email, aRead.email, sharingGroup.name,
  ].map((s) => s.toLowerCase());

  let n = 0;
  const unique = (prefix: string) => `${prefix}-${t}-${++n}`;
  const throwaway: Throwaways = {
    event: async () => (await call(aUser, "POST", "/events/", { info: unique("A throwaway"), distribution: 0 })).uuid,
    attribute: async () => (await call(aUser, "POST", "/attributes/", { event_uuid: privateEvent.uuid, type: "domain", value: `${unique("tmp")}.example.org` })).uuid,
    object: async () => (await call(aUser, "POST", "/objects/", { event_uuid: privateEvent.uuid, name: "domain-ip", attributes: [{ type: "domain", value: `${unique("tmp")}.example.org` }] })).uuid,
    hunt: async (runIt = false) => {
      const id = (await call(aUser, "POST", "/hunts/", { name: unique("A throwaway hunt"), query: "type:domain" })).id;
      if (runIt) await call(aUser, "POST", `/hunts/${id}/run`);
      return id;
    },
    export: async () => {
      const id = (await call(aUser, "POST", "/exports/", { name: unique("A throwaway export"), query: "type:domain" })).id;
      await exportDone(id);
      return id;
    },
    feed: async () => (await call(aAdmin, "POST", "/feeds/", { name: unique("A throwaway feed"), provider: "p", url: `${server.url}/tmp.csv`, source_format: "csv", input_source: "network" })).id,
    schedule: async () => (await call(aAdmin, "POST", "/tasks/schedule", { name: unique("A throwaway"), task: "run_hunt", schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs: { hunt_id: adminHunt.id }, enabled: false })).id,
    apiKey: async () => (await call(aUser, "POST", "/api-keys/", { name: unique("A throwaway key"), scopes: ["events:read"] })).id,
    notification: async () =>
      (await q<{ id: number }>(
        `INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key) VALUES ($1, 'event.updated', 'event', $2, jsonb_build_object('event_uuid', $3::text), 'cross-org:' || gen_random_uuid()) RETURNING id`,
        [aUser.id, privateEvent.uuid, privateEvent.uuid],
      ))[0].id,
    user: async () => (await createUser(app, site, 4, orgA.id)).id,
    role: async () => (await call(site, "POST", "/roles/", { name: unique("role"), scopes: ["users:me"] })).id,
    tag: async () => (await call(site, "POST", "/tags/", { name: unique("tmp-tag") })).id,
    exclusion: async () => (await call(site, "POST", "/correlations/exclusions", { value: `${unique("tmp")}.%` })).id,
    report: async () => (await call(aUser, "POST", `/reports/${privateEvent.uuid}`, { name: unique("A throwaway report"), content: "tmp" })).uuid,
    sharingGroup: async () => (await call(aAdmin, "POST", "/sharing_groups/", { name: unique("A throwaway sharing group") })).id,
  };

  return {
    app, tag: t, site, users, orgB, bKey: { id: bKey.id, token: bKey.token }, a, shared: { galaxy: { id: galaxyId, uuid: galaxyUuid }, exclusionId, rebuildId }, bEvent,
    privateStrings, server, unique, q, credential,
    holds: (actor, scopes) => scopes.every((s) => grantedByAll(grants(actor), s)),
    call, throwaway,
  };
}

export async function upload(app: TestApp, token: string, filename: string, content: string | Buffer, format: string): Promise<string> {
  const form = new FormData();
  form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`cross-org world: upload ${res.status} ${JSON.stringify(body)}`);
  return body.key ?? body.url;
}

/** Waits for a task run to end; returns it. */
export async function finished(app: TestApp, reader: TestUser, runId: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await app.http.get(`/tasks/${runId}`, { token: reader.token });
    return ["succeeded", "failed"].includes(r.body?.status) ? r.body : undefined;
  }, `task run ${runId}`, timeoutMs, 100);
}

/** The answer's text mentions none of A's private strings; returns those it does. */
export function leaks(w: CrossOrgWorld, text: string): string[] {
  const lower = text.toLowerCase();
  return w.privateStrings.filter((s) => lower.includes(s));
}
