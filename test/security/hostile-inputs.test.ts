/**
 * Generative hostile input (issue 20, finding 10: "bad input never 500"). For every operation of the
 * running service's /openapi.json, requests are derived from the operation's declared path and query
 * parameters and request body: a plausible base request (fixtures for the ids it names) in which ONE
 * value at a time is hostile: a NUL character, an unpaired surrogate, 100 000 characters, 1e308,
 * 1e400, 2**63, -1, NaN-like strings, a wrong type (object, array, number, string, null where the
 * schema has no null), the name of a member every object inherits (`constructor`, `__proto__`) as
 * a value, a field name and a query parameter name, and whole bodies of the wrong shape. They are
 * sent as the administrator, so authorization passes and validation is what is tested. Every answer
 * must be below 500, every 4xx must carry the error shape {detail, code} with a catalogue code, and
 * the row count of every table of the public schema (but UNCOUNTED) and of graphile-worker's job
 * table must be the same after each operation's batch as before it: nothing hostile is written, not
 * even partly. The base
 * request itself is never sent. A generated value the declared schema accepts (2**31 where ids go to
 * 2**53, `NaN` as a tag name, 100 000 characters where no bound is declared) is an edge, not
 * hostile: it runs after the batch, may be stored, and must still never answer 5xx.
 *
 * Schema-less bodies (POST /events/import, /sightings/, /tasks/schedule and the settings namespaces:
 * any JSON object in the document) are varied only with what no schema can accept (NUL, unpaired
 * surrogates, a NUL in a field name, a body that is not an object; an inherited member's name as a
 * value or a field name, which they may store but must never answer 5xx): their real rules live in
 * the services and have tests of their own (events-hostile.test.ts, sightings, tasks).
 */
import crypto from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeTable } from "../../rest-shim/index.ts";
import { buildOpenApi } from "../../rest-shim/openapi.ts";
import { VERSION } from "../../src/server.ts";
import { ERROR_CODES, fromDatabaseRefusal } from "../../src/platform/errors.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

type Json = any;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  maxItems?: number;
  additionalProperties?: unknown;
}

interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Schema;
}

interface Operation {
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: { form: boolean; schema: Schema } | null;
}

/** The document the running service serves (checked equal to it in beforeAll), read at collection time to name the tests. */
const DOCUMENT = buildOpenApi(routeTable, VERSION);
/** A schema with the document's named components (`$ref`) put in place, so that their fields are varied too. */
function resolved(s: Json): Json {
  if (Array.isArray(s)) return s.map(resolved);
  if (!s || typeof s !== "object") return s;
  if (typeof s.$ref === "string") return resolved(DOCUMENT.components.schemas[s.$ref.replace("#/components/schemas/", "")]);
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([n, x]) => [n, resolved(x)])) : resolved(v)]));
}
const OPERATIONS: Operation[] = Object.entries(DOCUMENT.paths).flatMap(([path, ops]) =>
  Object.entries(ops as Record<string, Json>).map(([method, op]) => {
    const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
    const [type, media] = content ? Object.entries(content)[0] : [null, null];
    return {
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      parameters: (op.parameters ?? []) as Parameter[],
      // Multipart bodies stream and are varied by their own test below.
      body: media && type !== "multipart/form-data" ? { form: type === "application/x-www-form-urlencoded", schema: resolved(media.schema) } : null,
    };
  }),
);

/**
 * Operations the generator cannot vary from the document, and why. They still get the one variant
 * every operation gets: an undeclared query parameter holding a NUL (refused before any handler runs,
 * so none of them acts). The list must match the document: a new operation without declared input
 * has to be added here (and given a test of its own if it takes input the document does not show).
 */
const NO_DECLARED_INPUT: Record<string, string> = {
  "POST /auth/logout": "no input; ends the caller's session (only the NUL query variant, which it never sees)",
  "GET /auth/whoami": "no input",
  "GET /auth/scopes": "no input",
  "GET /users/me": "no input",
  "GET /roles/scopes": "no input",
  "GET /settings/user": "no input",
  "GET /settings/runtime": "no input",
  "GET /api-keys/": "no input",
  "POST /galaxies/update": "no input; reads GALAXY_SOURCE",
  "POST /taxonomies/update": "no input; reads TAXONOMIES_SOURCE",
  "POST /warninglists/update": "no input; reads WARNINGLISTS_SOURCE",
  "DELETE /correlations/": "no input; deletes every correlation",
  "GET /correlations/stats": "no input",
  "POST /correlations/run": "no input; starts a full rebuild",
  "GET /correlations/exclusions": "no input",
  "GET /tasks/registered": "no input",
  "GET /tasks/active": "no input",
  "GET /events/retention/status": "no input",
  "POST /feeds/upload": "multipart body (described, but streamed): its text fields are tested below (multipart)",
  "GET /misp/servers/getVersion": "no input",
  "GET /misp/users/view/me": "no input",
  "GET /misp/attributes/describeTypes.json": "no input",
  "GET /misp/events/index": "PyMISP's /key:value filters, undeclared: POST /misp/events/index takes the same in its body",
  "GET /misp/events/restSearch": "PyMISP's /key:value filters, undeclared: POST /misp/events/restSearch takes the same in its body, through the same contract",
  "GET /misp/attributes/restSearch": "PyMISP's /key:value filters, undeclared: POST /misp/attributes/restSearch takes the same in its body, through the same contract",
  "GET /misp/feeds/index": "no input",
  "GET /misp/feeds/fetchFromAllFeeds": "no input; queues a fetch of the caller's enabled feeds (the fixture's is disabled)",
  "GET /misp/galaxies/index": "no input",
  "GET /misp/taxonomies/index": "no input",
  "GET /misp/warninglists/index": "no input",
};

/**
 * Tables left out of the row counts. audit_logs: refused actions are audited by design (failed
 * logins, denied writes). login_throttles: authentication counts every failed login per account and
 * per address before answering 401/429 (the POST /auth/token variants fail by construction). Every
 * other table authentication reads (users, api_keys, refresh_tokens, login_known_addresses, roles)
 * stays counted: a hostile request must never create a session, key or known address.
 */
const UNCOUNTED = new Set(["audit_logs", "login_throttles"]);

/**
 * Operations whose generated requests find a defect in code another engineer owns; each is skipped
 * with the finding named, so that the lead can route it. Empty when every operation holds.
 */
const KNOWN_GAPS: Record<string, string> = {};

// ---------------------------------------------------------------- hostile values

/** A JSON number literal sent as is (JSON.stringify cannot write 1e400 or 2**63 exactly). */
class Raw {
  constructor(readonly literal: string) {}
}
const NUL = "a\u0000b";
const HIGH = "a\ud800b";
const LOW = "\udc00z";
const LONG = "a".repeat(100_000);
/**
 * Names every plain object answers through its prototype: a lookup table keyed by the caller's text
 * (`TABLE[name]`, `name in TABLE`, `out[name] ??= []`) finds a function or Object.prototype there.
 */
const INHERITED = ["constructor", "__proto__"];

const forString = (nullable: boolean): unknown[] => [NUL, HIGH, LOW, LONG, INHERITED[0], { a: 1 }, ["x"], 12345, true, ...(nullable ? [] : [null])];
/** -1 and 1.5 only where the schema says they are wrong (a negative taxonomy value is a value). */
const forNumber = (nullable: boolean, s: Schema): unknown[] => [
  new Raw("1e308"),
  new Raw("1e400"),
  new Raw("9223372036854775808"),
  new Raw("-9223372036854775809"),
  // Past PostgreSQL's integer (a 500 where a schema allows JavaScript's safe range but the column is int4).
  new Raw("2147483648"),
  new Raw("-2147483649"),
  new Raw("9007199254740991"),
  ...((s.minimum ?? s.exclusiveMinimum ?? -Infinity) > -1 || s.exclusiveMinimum === -1 ? [-1] : []),
  ...(s.type === "integer" ? [new Raw("1.5")] : []),
  "NaN",
  "Infinity",
  "12",
  NUL,
  { a: 1 },
  [1],
  true,
  ...(nullable ? [] : [null]),
];
const forBoolean = (nullable: boolean): unknown[] => ["true", 1, NUL, { a: 1 }, [true], ...(nullable ? [] : [null])];
const forArray = (nullable: boolean): unknown[] => ["x", { a: 1 }, [NUL], [HIGH], [LONG], [{ a: 1 }], Array.from({ length: 10_000 }, (_, i) => `x${i}`), ...(nullable ? [] : [null])];
const forObject = (nullable: boolean): unknown[] => [[], "x", 1, { "a\u0000": 1 }, { k: NUL }, { k: LOW }, ...(nullable ? [] : [null])];
/** Free-form values: only what no schema can accept. */
const UNSTORABLE: unknown[] = [NUL, HIGH, LOW];

/** URL parts: raw, already percent-encoded. %ED%A0%80 is a surrogate in WTF-8 (no valid UTF-8). */
const URL_VALUES = ["a%00b", "%00", "%ED%A0%80", "a".repeat(100_000), "1e308", "9223372036854775808", "2147483648", "-1", "NaN", "Infinity", "", "%20", "..%2F..%2Fetc%2Fpasswd", "0", ...INHERITED];

/** Whole bodies of the wrong shape. */
const WHOLE_BODIES: (string | null)[] = ["[]", '"x"', "1e400", "null", '"a\\u0000b"', '{"a\\u0000":1}', "{", "", "[".repeat(5000) + "]".repeat(5000), `{"k":"\\ud800"}`];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The text a URL part decodes to; null when it is no UTF-8 (then no schema accepts it). */
function urlDecoded(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** Whether a string schema (a path or query parameter's) accepts this text; NUL and surrogates never pass. */
function acceptsText(s: Schema, v: string | null): boolean {
  if (v === null || /[\u0000\uD800-\uDFFF]/.test(v)) return false;
  if (s.anyOf) return s.anyOf.some((b) => acceptsText(b, v));
  if (s.const !== undefined) return s.const === v;
  if (s.enum) return s.enum.includes(v);
  // A nullable string is ["string", "null"]: it takes text too.
  if (s.type !== undefined && !([] as string[]).concat(s.type).includes("string")) return false;
  if (v.length < (s.minLength ?? 0) || v.length > (s.maxLength ?? Infinity)) return false;
  if (s.format === "uuid" && !UUID.test(v)) return false;
  return s.pattern === undefined || new RegExp(s.pattern).test(v);
}

/**
 * Whether a body schema accepts a value (the parts of JSON Schema the document uses). A NUL or an
 * unpaired surrogate is never accepted: no schema can make it storable.
 */
function accepts(s: Schema, v: unknown): boolean {
  if (s.anyOf) return s.anyOf.some((b) => accepts(b, v));
  if (s.const !== undefined) return s.const === v;
  if (s.enum) return s.enum.includes(v);
  const types = s.type === undefined ? [] : ([] as string[]).concat(s.type);
  const value = v instanceof Raw ? Number(v.literal) : v;
  if (value === null) return types.includes("null");
  if (typeof value === "string") {
    if (!types.includes("string") && types.length) return false;
    return acceptsText(s, value);
  }
  if (typeof value === "number") {
    if (!types.includes("number") && !(types.includes("integer") && Number.isInteger(value))) return false;
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return false;
    return value >= (s.minimum ?? -Infinity) && value <= (s.maximum ?? Infinity) && value > (s.exclusiveMinimum ?? -Infinity);
  }
  if (typeof value === "boolean") return types.includes("boolean");
  if (Array.isArray(value)) return types.includes("array") && value.length <= (s.maxItems ?? Infinity) && value.every((x) => accepts(s.items ?? {}, x));
  if (typeof value === "object") {
    return types.includes("object") && Object.entries(value as object).every(([k, x]) => acceptsText({}, k) && accepts(s.properties?.[k] ?? {}, x));
  }
  return false;
}

function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.literal);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)]);
}

const isNullable = (s: Schema) => s.type === "null" || (Array.isArray(s.type) && s.type.includes("null")) || (s.anyOf ?? []).some(isNullable);

/** The non-null branch of a nullable or union schema (objects first: they have leaves to vary). */
function mainBranch(s: Schema): Schema {
  if (!s.anyOf) return s;
  const branches = s.anyOf.filter((b) => b.type !== "null");
  return mainBranch(branches.find((b) => b.type === "object" && b.properties) ?? branches[0] ?? s);
}

function typeOf(s: Schema): string | undefined {
  const m = mainBranch(s);
  if (m.enum || m.const !== undefined) return "string";
  return Array.isArray(m.type) ? m.type.find((t) => t !== "null") : m.type;
}

function hostileFor(s: Schema): unknown[] {
  const nullable = isNullable(s);
  switch (typeOf(s)) {
    case "string":
      return forString(nullable);
    case "integer":
    case "number":
      return forNumber(nullable, mainBranch(s));
    case "boolean":
      return forBoolean(nullable);
    case "array":
      return forArray(nullable);
    case "object":
      return forObject(nullable);
    default:
      return UNSTORABLE;
  }
}

/** Every property path under a body schema with declared properties (objects inside objects too). */
function leaves(s: Schema, at: string[] = [], depth = 0): { path: string[]; schema: Schema }[] {
  const m = mainBranch(s);
  if (m.type !== "object" || !m.properties || depth > 3) return at.length ? [{ path: at, schema: s }] : [];
  const inner = Object.entries(m.properties).flatMap(([k, v]) => leaves(v, [...at, k], depth + 1));
  return at.length ? [{ path: at, schema: s }, ...inner] : inner;
}

/** Leaves of a base value (for schema-less bodies). */
function valueLeaves(v: Json, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => valueLeaves(x, [...at, i]));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => valueLeaves(x, [...at, k]));
  return [at];
}

function setAt(base: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(base ?? {});
  let node = copy;
  for (const k of path.slice(0, -1)) {
    if (node[k] === null || typeof node[k] !== "object") node[k] = {};
    node = node[k];
  }
  node[path[path.length - 1]] = value;
  return copy;
}

// ---------------------------------------------------------------- plausible bases

let app: TestApp;
let admin: TestUser;
const fx: Record<string, string> = {};

/** A schema-valid value for a required field the base needs (no fixture involved). */
function sample(s: Schema, name: string): unknown {
  const m = mainBranch(s);
  if (m.const !== undefined) return m.const;
  if (m.enum) return m.enum.find((e) => e !== null);
  switch (typeOf(m)) {
    case "string":
      if (m.format === "uuid") return crypto.randomUUID();
      if (m.format === "email") return `hostile-${crypto.randomBytes(4).toString("hex")}@example.org`;
      if (m.pattern?.startsWith("^[0-9]")) return "1";
      return `${name}-${crypto.randomBytes(3).toString("hex")}`.padEnd(m.minLength ?? 1, "x");
    case "integer":
    case "number":
      return m.minimum ?? (m.exclusiveMinimum !== undefined ? m.exclusiveMinimum + 1 : 1);
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return Object.fromEntries((m.required ?? []).map((k) => [k, sample(m.properties?.[k] ?? {}, k)]));
    default:
      return "x";
  }
}

/** Path parameter values of the base: the fixtures, so that requests reach the services. */
const PATH_BASE: Record<string, () => string> = {
  user_id: () => fx.user,
  role_id: () => fx.role,
  org_id: () => fx.org,
  key_id: () => fx.key,
  galaxy_id: () => "999999",
  taxonomy_id: () => "999999",
  warninglist_id: () => "999999",
  source_event_uuid: () => fx.event,
  rebuild_id: () => "999999",
  exclusion_id: () => fx.exclusion,
  task_id: () => fx.task,
  run_id: () => crypto.randomUUID(),
  hunt_id: () => fx.hunt,
  feed_id: () => fx.feed,
  notification_id: () => "999999",
  event_uuid: () => fx.event,
  tag: () => fx.tagName,
  attribute_uuid: () => fx.attribute,
  object_uuid: () => fx.object,
  tag_id: () => fx.tag,
  // The MISP API's: its own event and attribute, so that its deletions leave the others' fixtures.
  event_id: () => fx.mispEvent,
  attribute_id: () => fx.mispAttribute,
  object_id: () => fx.mispObject,
  sighting_id: () => "999999",
};
const NAMESPACE_BASE: Record<string, string> = { "/settings/user/{namespace}": "hostile-test", "/settings/runtime/{namespace}": "retention" };

/** Bodies the schema alone cannot make plausible: fixtures they name, or credentials that must fail. */
function bodyBase(op: Operation): Json {
  const event = () => ({ Event: { uuid: crypto.randomUUID(), info: "hostile import", date: "2024-05-01", threat_level_id: "2", analysis: "1", timestamp: "1700000000", Attribute: [{ uuid: crypto.randomUUID(), type: "ip-dst", value: "198.51.100.9", timestamp: "1700000000" }] } });
  const bases: Record<string, () => Json> = {
    "POST /auth/token": () => ({ grant_type: "password", username: "nobody@example.org", password: "not the password" }),
    "POST /auth/refresh": () => ({ refresh_token: "not-a-refresh-token" }),
    "POST /users/": () => ({ email: `hostile-${crypto.randomBytes(4).toString("hex")}@example.org`, org_id: Number(fx.org), role_id: Number(fx.role), password: "a long password 1" }),
    // A wrong current password: no variant can change the administrator's password.
    "PATCH /users/me": () => ({ current_password: "not the password", password: "another long password" }),
    "POST /roles/": () => ({ name: `hostile-${crypto.randomBytes(3).toString("hex")}`, scopes: ["events:read"] }),
    "POST /api-keys/": () => ({ name: "hostile", scopes: ["events:read"] }),
    "POST /tasks/schedule": () => ({ name: "hostile", task: "generate_correlations", schedule_type: "interval", interval: { every: 1, period: "hours" } }),
    "POST /hunts/": () => ({ name: "hostile", query: "value:198.51.100.9", hunt_type: "search" }),
    "POST /feeds/": () => ({ name: "hostile", provider: "p", input_source: "network", url: "http://127.0.0.1:1/feed.csv", source_format: "csv", enabled: false }),
    "POST /feeds/csv/preview": () => ({ input_source: "network", url: "http://127.0.0.1:1/feed.csv" }),
    "POST /feeds/json/preview": () => ({ input_source: "network", url: "http://127.0.0.1:1/feed.json" }),
    "POST /feeds/freetext/preview": () => ({ input_source: "network", url: "http://127.0.0.1:1/feed.txt" }),
    "POST /events/import": event,
    "POST /attributes/": () => ({ event_uuid: fx.event, type: "ip-dst", value: "198.51.100.10" }),
    "POST /objects/": () => ({ event_uuid: fx.event, name: "file" }),
    "POST /sightings/": () => ({ value: "198.51.100.9", source: "hostile" }),
    "POST /settings/user/{namespace}": () => ({ theme: "dark" }),
    "POST /settings/runtime/{namespace}": () => ({}),
    "POST /misp/events/add": event,
    "POST /misp/events/edit/{event_id}": () => ({ Event: { info: "hostile edit" } }),
    "POST /misp/events/index": () => ({ eventinfo: "hostile", limit: 5 }),
    "POST /misp/events/restSearch": () => ({ value: "198.51.100.12", eventid: fx.mispEvent, last: "30d", published: [0, 1], limit: 5, page: 1 }),
    "POST /misp/attributes/restSearch": () => ({ value: "198.51.100.12", type: "ip-dst", timestamp: ["30d", "0d"], to_ids: 0, limit: 5, returnFormat: "csv" }),
    "POST /misp/attributes/add/{event_id}": () => ({ type: "ip-dst", value: "198.51.100.11" }),
    "POST /misp/attributes/edit/{attribute_id}": () => ({ Attribute: { comment: "hostile" } }),
    "POST /misp/attributes/delete/{attribute_id}": () => ({ hard: 0 }),
    "POST /misp/tags/add": () => ({ name: "hostile:misp" }),
    "POST /misp/tags/attachTagToObject": () => ({ uuid: fx.mispEvent, tag: fx.tagName }),
    "POST /misp/tags/removeTagFromObject": () => ({ uuid: fx.mispEvent, tag: fx.tagName }),
    "POST /misp/sightings/add": () => ({ value: "198.51.100.9", source: "hostile", type: "0" }),
    "POST /misp/sightings/add/{attribute_id}": () => ({ source: "hostile", type: "0" }),
    "POST /misp/events/view/{event_id}": () => ({ deleted: 1 }),
    "POST /misp/events/freeTextImport/{event_id}": () => ({ value: "198.51.100.13 hostile-free.example.com" }),
    "POST /misp/objects/add/{event_id}": () => ({ name: "domain-ip", Attribute: [{ type: "domain", value: "hostile-object.example.com", object_relation: "domain" }] }),
    "POST /misp/objects/edit/{object_id}": () => ({ Object: { comment: "hostile edit" } }),
    "POST /misp/objects/delete/{object_id}": () => ({ hard: 0 }),
    "DELETE /misp/objects/delete/{object_id}": () => ({ hard: 0 }),
    "POST /misp/objectReferences/add": () => ({ object_uuid: fx.mispObject, referenced_uuid: fx.mispAttribute, relationship_type: "related-to" }),
    "POST /misp/objectReferences/add/{object_id}": () => ({ referenced_uuid: fx.mispAttribute, relationship_type: "related-to" }),
    "POST /misp/tags/search": () => ({ tagname: "hostile%" }),
    "POST /misp/tags/edit/{tag_id}": () => ({ Tag: { colour: "#0a0a0a" } }),
    "POST /misp/sightings/listSightings": () => ({ context: "attribute", id: fx.mispAttribute }),
    "POST /misp/sightings/index": () => ({}),
    "POST /misp/feeds/add": () => ({ Feed: { name: "hostile", provider: "p", url: "http://127.0.0.1:1/feed.txt", source_format: "freetext" } }),
    "POST /misp/feeds/edit/{feed_id}": () => ({ Feed: { name: "hostile edit" } }),
    "POST /misp/feeds/enable/{feed_id}": () => ({}),
    "POST /misp/feeds/disable/{feed_id}": () => ({}),
  };
  return bases[op.key]?.() ?? (op.body ? sample(op.body.schema, "body") : undefined);
}

const schemaLess = (op: Operation) => op.body !== null && !mainBranch(op.body.schema).properties;

// ---------------------------------------------------------------- requests

interface Variant {
  label: string;
  /** The declared schema accepts the value: it may be stored, but must never answer 5xx. */
  edge?: boolean;
  path: Record<string, string>;
  query: [string, string][];
  body?: string;
}

function variants(op: Operation): Variant[] {
  const path: Record<string, string> = {};
  for (const p of op.parameters.filter((p) => p.in === "path")) {
    path[p.name] = p.name === "namespace" ? NAMESPACE_BASE[op.path] : encodeURIComponent(PATH_BASE[p.name]?.() ?? String(sample(p.schema, p.name)));
  }
  const requiredQuery: [string, string][] = op.parameters
    .filter((p) => p.in === "query" && p.required)
    .map((p) => [p.name, encodeURIComponent(String(sample(p.schema, p.name)))]);
  const base = bodyBase(op);
  const encode = (body: Json) => (op.body?.form ? formBody(body) : serialize(body));
  const baseBody = op.body ? encode(base) : undefined;
  const out: Variant[] = [{ label: "undeclared query parameter with NUL", path, query: [...requiredQuery, ["zz_hostile", "a%00b"]], body: baseBody }];
  if (op.key in NO_DECLARED_INPUT) return out;

  for (const p of op.parameters) {
    for (const raw of URL_VALUES) {
      const label = `${p.in} ${p.name}=${raw.slice(0, 30)}`;
      // A value the parameter's schema accepts (`0` for a flag, `NaN` for a tag name) is an edge, not hostile.
      const edge = acceptsText(p.schema, urlDecoded(raw));
      if (p.in === "path") out.push({ label, edge, path: { ...path, [p.name]: raw }, query: requiredQuery, body: baseBody });
      else out.push({ label, edge, path, query: [...requiredQuery.filter(([n]) => n !== p.name), [p.name, raw]], body: baseBody });
    }
    if (p.in === "query") out.push({ label: `query ${p.name} repeated`, path, query: [...requiredQuery, [p.name, "1"], [p.name, "2"]], body: baseBody });
  }
  // Only where a query is declared: a route without one ignores its query string (and would act).
  if (op.parameters.some((p) => p.in === "query")) {
    // The MISP API ignores parameters it does not know, as MISP does: there it is an edge.
    for (const name of INHERITED) out.push({ label: `query parameter named ${name}`, edge: isMisp(op), path, query: [...requiredQuery, [name, "1"], [name, "2"]], body: baseBody });
  }
  if (!op.body) return out;

  if (op.body.form) {
    for (const name of Object.keys(op.body.schema.properties ?? {})) {
      for (const raw of ["a%00b", "%ED%A0%80", "a".repeat(100_000)]) out.push({ label: `form ${name}=${raw.slice(0, 20)}`, path, query: requiredQuery, body: formBody(base, [[name, raw]]) });
      out.push({ label: `form ${name} repeated`, path, query: requiredQuery, body: `${formBody(base)}&${name}=1&${name}=2` });
    }
    out.push({ label: "form field name with NUL", path, query: requiredQuery, body: `${formBody(base)}&a%00b=1` });
    for (const name of INHERITED) out.push({ label: `form field named ${name}, repeated`, path, query: requiredQuery, body: `${formBody(base)}&${name}=1&${name}=2` });
    return out;
  }

  // The MISP API takes no body as none at all (PyMISP posts deletions and publishing without one): there "" and null are edges.
  for (const whole of WHOLE_BODIES) out.push({ label: `body ${(whole ?? "").slice(0, 20)}`, edge: isMisp(op) && (whole === "" || whole === "null"), path, query: requiredQuery, body: whole ?? undefined });
  out.push({ label: "body field name with NUL", path, query: requiredQuery, body: encode({ ...(base ?? {}), "a\u0000b": 1 }) });
  // A computed key: an own field named __proto__, as JSON.parse makes it. MISP ignores unknown fields: an edge there.
  // Alone too, where a route reads a bare body (MISP's events/add without its Event wrapper) and names the field in its refusal.
  for (const name of INHERITED) {
    out.push({ label: `body field named ${name}`, edge: isMisp(op), path, query: requiredQuery, body: encode({ ...(base ?? {}), [name]: { a: 1 } }) });
    out.push({ label: `body of one field named ${name}`, edge: isMisp(op), path, query: requiredQuery, body: encode({ [name]: { a: 1 } }) });
  }
  // MISP ignores fields it does not know (PyMISP sends back the server's own fields): there it is an edge.
  out.push({ label: "body unknown field, overlong", edge: isMisp(op), path, query: requiredQuery, body: encode({ ...(base ?? {}), zz_unknown: LONG }) });
  if (schemaLess(op)) {
    for (const leaf of valueLeaves(base)) {
      for (const v of UNSTORABLE) out.push({ label: `body ${leaf.join(".")}=${JSON.stringify(v).slice(0, 20)}`, path, query: requiredQuery, body: encode(setAt(base, leaf, v)) });
      for (const v of INHERITED) out.push({ label: `body ${leaf.join(".")}=${v}`, edge: true, path, query: requiredQuery, body: encode(setAt(base, leaf, v)) });
    }
    return out;
  }
  for (const leaf of leaves(op.body.schema)) {
    for (const v of hostileFor(leaf.schema)) {
      const edge = accepts(leaf.schema, v);
      out.push({ label: `body ${leaf.path.join(".")}=${serialize(v).slice(0, 20)}`, edge, path, query: requiredQuery, body: encode(setAt(base, leaf.path, v)) });
    }
  }
  return out;
}

function formBody(base: Json, override: [string, string][] = []): string {
  const names = new Set(override.map(([n]) => n));
  const kept = Object.entries(base ?? {})
    .filter(([k]) => !names.has(k))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return [...kept, ...override.map(([n, raw]) => `${n}=${raw}`)].join("&");
}

async function send(op: Operation, v: Variant): Promise<{ status: number; text: string; body: Json }> {
  const url = op.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => v.path[name]) + (v.query.length ? `?${v.query.map(([k, x]) => `${k}=${x}`).join("&")}` : "");
  const headers: Record<string, string> = { authorization: `Bearer ${admin.token}` };
  if (v.body !== undefined) headers["content-type"] = op.body?.form ? "application/x-www-form-urlencoded" : "application/json";
  const res = await fetch(app.url + url, { method: op.method, headers, body: v.body });
  const text = await res.text();
  let body: Json = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* reported below */
  }
  return { status: res.status, text, body };
}

const isMisp = (op: Operation) => op.path.startsWith("/misp/");

/** What is wrong with an answer to hostile input, or null: the MISP API answers in MISP's error shape. */
function problem(op: Operation, res: { status: number; text: string; body: Json }): string | null {
  if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
  if (res.status >= 400 && isMisp(op)) {
    const b = res.body;
    const shaped = b && typeof b === "object" && typeof b.name === "string" && typeof b.message === "string" && typeof b.url === "string";
    return shaped ? null : `${res.status} not in MISP's error shape: ${res.text.slice(0, 200)}`;
  }
  if (res.status >= 400) {
    const b = res.body;
    const shaped = b && typeof b === "object" && typeof b.code === "string" && b.code in ERROR_CODES && (typeof b.detail === "string" || Array.isArray(b.detail));
    if (!shaped) return `${res.status} not in the error shape: ${res.text.slice(0, 200)}`;
  }
  return null;
}

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
let counted: string[] = [];

async function snapshot(): Promise<Record<string, number>> {
  const parts = counted.map((t) => `'${t}', (SELECT count(*) FROM public."${t}")`);
  parts.push("'graphile_worker._private_jobs', (SELECT count(*) FROM graphile_worker._private_jobs)");
  // json_build_object takes at most 100 arguments: one object per 40 tables, merged.
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += 40) chunks.push(`jsonb_build_object(${parts.slice(i, i + 40).join(", ")})`);
  const { rows } = await sql(`SELECT ${chunks.join(" || ")} AS counts`);
  return rows[0].counts;
}

beforeAll(async () => {
  app = await startTestApp("hostile-inputs");
  admin = await loginAdmin(app);
  const served = await app.http.get("/openapi.json");
  expect(served.body).toEqual(JSON.parse(JSON.stringify(buildOpenApi(routeTable, VERSION, app.booted.ctx.config.PUBLIC_URL))));
  const { rows } = await sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  counted = rows.map((r) => r.tablename as string).filter((t) => !UNCOUNTED.has(t));

  const ok = async (res: Promise<{ status: number; text: string; body: Json }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`fixture: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = (path: string, json: unknown) => ok(app.http.post(path, { token: admin.token, json }));
  fx.org = String(await createOrganisation(app, admin));
  fx.role = String(await createRole(app, admin, ["events:read"]));
  fx.user = String((await createUser(app, admin, Number(fx.role), Number(fx.org))).id);
  fx.key = String((await post("/api-keys/", { name: "fixture", scopes: ["events:read"] })).id);
  fx.event = (await post("/events/", { info: "hostile fixture" })).uuid;
  fx.attribute = (await post("/attributes/", { event_uuid: fx.event, type: "ip-dst", value: "198.51.100.8" })).uuid;
  fx.object = (await post("/objects/", { event_uuid: fx.event, name: "file" })).uuid;
  const tag = await post("/tags/", { name: "hostile:fixture" });
  fx.tag = String(tag.id);
  fx.tagName = tag.name;
  fx.hunt = String((await post("/hunts/", { name: "fixture", query: "value:198.51.100.8", hunt_type: "search" })).id);
  fx.feed = String((await post("/feeds/", { name: "fixture", provider: "p", input_source: "network", url: "http://127.0.0.1:1/feed.csv", source_format: "csv", enabled: false })).id);
  fx.task = (await post("/tasks/schedule", { name: "fixture", task: "generate_correlations", schedule_type: "interval", interval: { every: 1, period: "hours" } })).id;
  fx.exclusion = String((await post("/correlations/exclusions", { value: "198.51.100.250" })).id);
  await post("/settings/user/hostile-test", { theme: "light" });
  fx.mispEvent = (await post("/events/", { info: "hostile MISP fixture" })).uuid;
  fx.mispAttribute = (await post("/attributes/", { event_uuid: fx.mispEvent, type: "ip-dst", value: "198.51.100.12" })).uuid;
  fx.mispObject = (await post("/objects/", { event_uuid: fx.mispEvent, name: "domain-ip", attributes: [{ type: "domain", value: "hostile-fixture.example.com", object_relation: "domain" }] })).uuid;
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("the operations", () => {
  it("every operation without declared input is listed with its reason, and only those", () => {
    const noInput = OPERATIONS.filter((op) => op.parameters.length === 0 && op.body === null).map((op) => op.key);
    expect(noInput.sort()).toEqual(Object.keys(NO_DECLARED_INPUT).sort());
    expect(Object.keys(KNOWN_GAPS).filter((k) => !OPERATIONS.some((op) => op.key === k))).toEqual([]);
  });
});

describe.each(OPERATIONS.map((op) => [op.key, op] as const))("%s", (key, op) => {
  const test = key in KNOWN_GAPS ? it.skip : it;
  test("never answers 5xx, answers 4xx in the error shape, and writes nothing", async () => {
    const all = variants(op);
    const failures: string[] = [];
    const accepted: string[] = [];
    const run = async (batch: Variant[]) => {
      for (const v of batch) {
        const res = await send(op, v);
        const p = problem(op, res);
        if (p) failures.push(`${v.label}: ${p}`);
        if (res.status < 300) accepted.push(`${v.label} (${res.status})`);
      }
    };
    const before = await snapshot();
    await run(all.filter((v) => !v.edge));
    expect(failures).toEqual([]);
    expect(await snapshot(), `answered 2xx: ${accepted.join("; ")}`).toEqual(before);
    // Values the schema accepts may be stored; they must still never answer 5xx. Not for DELETE: a
    // value it accepts (force=0) deletes the fixture that the other operations need.
    if (op.method !== "DELETE") await run(all.filter((v) => v.edge));
    expect(failures).toEqual([]);
  }, 300_000);
});

describe("multipart text fields (POST /feeds/upload)", () => {
  async function upload(parts: string): Promise<{ status: number; text: string; body: Json }> {
    const res = await fetch(`${app.url}/feeds/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "multipart/form-data; boundary=B" },
      body: `${parts}--B--\r\n`,
    });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  }
  const file = (name: string, filename = "a.csv") => `--B\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n198.51.100.1\r\n`;
  const field = (name: string, value: string) => `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

  it.each([
    ["a NUL in a field's value", field("source_format", "c\u0000sv") + file("file"), ["body", "source_format"]],
    ["a NUL in a field's name", field("source\u0000format", "csv") + file("file"), ["body", "source\u0000format"]],
    ["a NUL in the file's name", field("source_format", "csv") + file("file", "a\u0000.csv"), ["body", "file", "filename"]],
  ])("%s: 422 naming it, nothing stored", async (_label, parts, loc) => {
    const before = await snapshot();
    const res = await upload(parts);
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect(await snapshot()).toEqual(before);
  });
});

describe("GraphQL", () => {
  const gql = (query: string, variables: Record<string, unknown> = {}) => app.http.graphql(query, variables, admin.token);
  it.each([
    ["a NUL in a variable", "mutation($n: String!) { createEvent(input: { info: $n }) { uuid } }", { n: NUL }, ["variables", "n"]],
    ["an unpaired surrogate in a variable", "mutation($n: String!) { createEvent(input: { info: $n }) { uuid } }", { n: HIGH }, ["variables", "n"]],
    ["a NUL deep in a variable", "mutation($i: EventInput!) { createEvent(input: $i) { uuid } }", { i: { info: "ok", date: NUL } }, ["variables", "i", "date"]],
    // The literal's line and column (1-based) in `document`.
    ["a NUL in a string literal", 'mutation { createEvent(input: { info: "x\\u0000" }) { uuid } }', {}, ["document", 1, 39]],
  ])("%s: a validation_error (422) naming it, nothing written", async (_label, query, variables, loc) => {
    const before = await snapshot();
    const res = await gql(query, variables);
    expect(res.status).toBeLessThan(500);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    expect((res.body.errors?.[0].extensions as { detail: { loc: unknown }[] }).detail.map((d) => d.loc)).toContainEqual(loc);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ["escaped", 'mutation { createEvent(input: { info: "x\\ud800" }) { uuid } }'],
    ["raw", 'mutation { createEvent(input: { info: "x\ud800" }) { uuid } }'],
  ])("an unpaired surrogate in a string literal (%s) is refused by the parser, nothing written", async (_label, query) => {
    const before = await snapshot();
    const res = await gql(query);
    expect(res.status).toBeLessThan(500);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0].extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(await snapshot()).toEqual(before);
  });
});

describe("the net under validation: a value the database refuses as data is a 400, never a 500", () => {
  it.each([
    ["pg: an integer out of range", () => sql("SELECT $1::int", [2147483648])],
    ["pg: a NUL in text", () => sql("SELECT $1::text", ["a\u0000b"])],
    ["pg: a date out of range", () => sql("SELECT $1::timestamptz", ["2024-13-45"])],
    ["Prisma: an integer out of range", () => app.booted.ctx.db.prisma.organisation.findUnique({ where: { id: 2147483648 } })],
    ["Prisma: a NUL in text", () => app.booted.ctx.db.prisma.organisation.create({ data: { name: "a\u0000b", uuid: crypto.randomUUID() } })],
  ])("%s", async (_label, run) => {
    const err: unknown = await Promise.resolve(run()).then(() => null, (e: unknown) => e);
    expect(err).not.toBeNull();
    expect(fromDatabaseRefusal(err)?.toBody()).toEqual({ detail: expect.any(String), code: "bad_request" });
  });

  it.each([
    ["pg: a unique index", () => sql("INSERT INTO organisations (uuid, name, local) SELECT gen_random_uuid(), name, true FROM organisations LIMIT 1")],
    ["Prisma: a unique index", async () => {
      const { name } = (await app.booted.ctx.db.prisma.organisation.findFirstOrThrow());
      return app.booted.ctx.db.prisma.organisation.create({ data: { name, uuid: crypto.randomUUID() } });
    }],
  ])("a row a unique index refuses (%s) is a 409: another request wrote it meanwhile", async (_label, run) => {
    const err: unknown = await Promise.resolve(run()).then(() => null, (e: unknown) => e);
    expect(err).not.toBeNull();
    expect(fromDatabaseRefusal(err)?.toBody()).toEqual({ detail: expect.any(String), code: "conflict" });
  });

  it("through a route: an event insert refused by a unique index answers 409, not 500", async () => {
    // A trigger stands in for the race no lock foresaw: the insert fails as a duplicate would.
    const info = `refused ${crypto.randomUUID()}`;
    await sql(`CREATE FUNCTION refuse_event_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.info = '${info}' THEN RAISE unique_violation USING MESSAGE = 'duplicate key value'; END IF; RETURN NEW; END $$`);
    await sql("CREATE TRIGGER refuse_event_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event_insert()");
    try {
      const res = await app.http.post("/events/", { token: admin.token, json: { info, distribution: 0 } });
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe("conflict");
    } finally {
      await sql("DROP TRIGGER refuse_event_insert ON events");
      await sql("DROP FUNCTION refuse_event_insert()");
    }
  });

  it("other database errors stay what they are", async () => {
    const err: unknown = await sql("SELECT * FROM no_such_table").then(() => null, (e: unknown) => e);
    expect(fromDatabaseRefusal(err)).toBeNull();
  });
});

describe("answers the HTTP layer gives itself", () => {
  /** A raw HTTP/1.1 exchange, for requests fetch will not send. */
  function raw(request: string | Buffer): Promise<{ status: number; body: Json }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(app.url).port), "127.0.0.1");
      let data = "";
      socket.on("data", (d) => (data += d.toString("utf8")));
      socket.on("error", reject);
      socket.on("close", () => {
        const [head, ...rest] = data.split("\r\n\r\n");
        resolve({ status: Number(head.split(" ")[1]), body: JSON.parse(rest.join("\r\n\r\n")) });
      });
      socket.end(request);
    });
  }

  it("431 for headers over the limit, in the error shape", async () => {
    const res = await app.http.get("/healthz", { headers: { "x-big": "a".repeat(200_000) } });
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ detail: expect.any(String), code: "headers_too_large" });
  });

  it("431 for a URL over the limit, in the error shape", async () => {
    const res = await app.http.get(`/events/?info=${"a".repeat(200_000)}`, { token: admin.token });
    expect(res.status).toBe(431);
    expect(res.body.code).toBe("headers_too_large");
  });

  it("414 for a path parameter over 4096 characters, in the error shape", async () => {
    const res = await app.http.get(`/events/${"a".repeat(5000)}`, { token: admin.token });
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ detail: expect.any(String), code: "uri_too_long" });
  });

  it("400 for a request Node's parser refuses (a NUL in a header, a broken request line), in the error shape", async () => {
    for (const request of [
      Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n", "latin1"),
      "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
      "NOT A REQUEST\r\n\r\n",
    ]) {
      const res = await raw(request);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String), code: "bad_request" });
    }
  });
});
