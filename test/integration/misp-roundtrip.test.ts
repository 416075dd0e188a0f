import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAttributeValue } from "../../src/modules/attributes/catalogue/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { sharedPath } from "../support/shared-data.ts";

/**
 * MISP JSON import and export over every real event of the shared data (read in place from
 * ../shared/data), through the HTTP API.
 *
 * Compared field by field, after import then `GET /events/{uuid}/export?format=misp`:
 * - event: uuid, info, date, threat_level_id, analysis, distribution, published, timestamp,
 *   publish_timestamp, locked, proposal_email_lock, protected, disable_correlation, extends_uuid,
 *   Orgc (name, and uuid when given), tags (name, local), Galaxy (deep equality);
 * - every attribute (standalone and inside objects), matched by uuid, none missing and none extra:
 *   type, category, value (as `validateAttributeValue` normalises it: MISP normalises too), to_ids,
 *   comment, timestamp, distribution, deleted, disable_correlation, object_relation, first_seen and
 *   last_seen (as instants), tags (name, local), sightings (uuid, type, source, date_sighting,
 *   organisation name);
 * - every object, matched by uuid: name, meta-category, description, template_uuid,
 *   template_version, timestamp, distribution, comment, deleted, its attributes (the set of uuids),
 *   and its references (uuid, referenced_uuid, referenced_type, relationship_type, comment,
 *   timestamp, deleted).
 * Not compared: what we do not keep or own — event/attribute/object `id`, `event_id`, `object_id`,
 * `org_id`, `orgc_id`, `Org` (the importer's organisation owns the copy), `attribute_count`,
 * `ShadowAttribute`, `RelatedEvent`, `event_creator_email`, `sharing_group_id`, attribute `data`,
 * attribute-level `Galaxy`, tag `id`/`user_id`/`hide_tag`/`numerical_value`/`relationship_type`, and
 * tag colours (tags are global: the colour is the first importer's, e.g. tlp:white differs between
 * CIRCL and Infoblox).
 */

type Json = Record<string, any>;

const FILES = [
  ...fs.readdirSync(sharedPath("misp-events")).filter((f) => f.endsWith(".json")).map((f) => `misp-events/${f}`),
  ...fs
    .readdirSync(sharedPath("misp-feed-sample"))
    .filter((f) => f.endsWith(".json") && f !== "manifest.json")
    .map((f) => `misp-feed-sample/${f}`),
].sort();

/** The one real file with a genuinely invalid attribute: a TLSH digest typed filename|sha256. */
const INVALID_FILE = "misp-feed-sample/68f58844-4aa6-4e1c-8ee5-cfb58eb6665e.json";
const INVALID_UUID = "e1763fb6-c003-48bf-b51e-a255340b4160";

const readEvent = (file: string): Json => JSON.parse(fs.readFileSync(sharedPath(file), "utf8"));
const inner = (doc: Json): Json => (doc.Event && typeof doc.Event === "object" ? doc.Event : doc);

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("misp-roundtrip");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const count = async (table: string) => (await sql(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
const maxChangeId = async () => Number((await sql("SELECT COALESCE(max(id), 0)::text AS m FROM change_records")).rows[0].m);
const changesSince = async (id: number) =>
  (await sql("SELECT id::text, kind, entity_type, entity_uuid::text, event_uuid::text FROM change_records WHERE id > $1 ORDER BY id", [id])).rows;
const rangeJobs = async (task: string) =>
  (
    await sql(
      `SELECT j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = $1 ORDER BY j.id`,
      [task],
    )
  ).rows.map((r) => ({ first: Number(r.payload.first_id), last: Number(r.payload.last_id) }));

const importEvent = (doc: unknown, query = "") => app.http.post(`/events/import${query}`, { token: admin.token, json: doc });
const exportEvent = (uuid: string) => app.http.get(`/events/${uuid}/export?format=misp`, { token: admin.token });

// ---- normalisation of MISP's loose typing ----
const bool = (v: unknown, dflt = false) => (v === undefined || v === null || v === "" ? dflt : v === true || v === 1 || v === "1" || v === "true");
const int = (v: unknown, dflt: number) => (v === undefined || v === null || v === "" ? dflt : Number(v));
const instant = (v: unknown) => (v === undefined || v === null || v === "" ? null : new Date(v as string).getTime());
const tagSet = (tags: unknown) =>
  ((tags as Json[] | undefined) ?? []).map((t) => `${t.name}|${bool(t.local)}`).sort();
const normalised = (type: string, value: unknown) => {
  const r = validateAttributeValue(type, String(value));
  if (!r.ok) throw new Error(`fixture value not valid for ${type}: ${r.reason}`);
  return r.normalized;
};

function attributeView(a: Json, expectedSide: boolean) {
  return {
    type: a.type,
    category: a.category,
    value: expectedSide ? normalised(a.type, a.value) : a.value,
    to_ids: bool(a.to_ids),
    comment: a.comment ?? "",
    timestamp: int(a.timestamp, -1),
    distribution: int(a.distribution, 5),
    deleted: bool(a.deleted),
    disable_correlation: bool(a.disable_correlation),
    object_relation: a.object_relation ?? null,
    first_seen: instant(a.first_seen),
    last_seen: instant(a.last_seen),
    tags: tagSet(a.Tag),
    sightings: ((a.Sighting as Json[] | undefined) ?? [])
      .map((s) => ({ uuid: String(s.uuid).toLowerCase(), type: int(s.type, 0), source: s.source ?? "", date: int(s.date_sighting, -1), org: s.Organisation?.name ?? null }))
      .sort((x, y) => x.uuid.localeCompare(y.uuid)),
  };
}

function objectView(o: Json) {
  return {
    name: o.name,
    meta_category: o["meta-category"] ?? null,
    description: o.description ?? null,
    template_uuid: o.template_uuid ? String(o.template_uuid).toLowerCase() : null,
    template_version: o.template_version === undefined || o.template_version === null || o.template_version === "" ? null : Number(o.template_version),
    timestamp: int(o.timestamp, -1),
    distribution: int(o.distribution, 5),
    comment: o.comment ?? "",
    deleted: bool(o.deleted),
    attributes: ((o.Attribute as Json[] | undefined) ?? []).map((a) => String(a.uuid).toLowerCase()).sort(),
    references: ((o.ObjectReference as Json[] | undefined) ?? [])
      .map((r) => ({
        uuid: String(r.uuid).toLowerCase(),
        referenced_uuid: String(r.referenced_uuid).toLowerCase(),
        referenced_type: r.referenced_type === undefined || r.referenced_type === null ? null : Number(r.referenced_type),
        relationship_type: r.relationship_type,
        comment: r.comment ?? "",
        timestamp: int(r.timestamp, -1),
        deleted: bool(r.deleted),
      }))
      .sort((x, y) => x.uuid.localeCompare(y.uuid)),
  };
}

function eventView(e: Json) {
  return {
    uuid: String(e.uuid).toLowerCase(),
    info: e.info,
    date: e.date,
    threat_level_id: int(e.threat_level_id, 4),
    analysis: int(e.analysis, 0),
    distribution: int(e.distribution, 0),
    published: bool(e.published),
    timestamp: int(e.timestamp, -1),
    publish_timestamp: int(e.publish_timestamp, 0),
    locked: bool(e.locked),
    proposal_email_lock: bool(e.proposal_email_lock),
    protected: bool(e.protected),
    disable_correlation: bool(e.disable_correlation),
    extends_uuid: e.extends_uuid ? String(e.extends_uuid).toLowerCase() : null,
    orgc_name: e.Orgc?.name,
    tags: tagSet(e.Tag),
  };
}

/** All attributes of an event, standalone and in objects, by uuid. */
function attributesByUuid(e: Json): Map<string, Json> {
  const all = [...((e.Attribute as Json[]) ?? []), ...((e.Object as Json[]) ?? []).flatMap((o) => (o.Attribute as Json[]) ?? [])];
  return new Map(all.map((a) => [String(a.uuid).toLowerCase(), a]));
}

/** Compares an exported event with the document it was imported from; `dropped` are uuids skipped on import. */
function compareRoundTrip(source: Json, exported: Json, dropped: Set<string> = new Set()) {
  expect(eventView(exported)).toEqual(eventView(source));
  if (source.Orgc?.uuid) expect(exported.Orgc.uuid).toBe(String(source.Orgc.uuid).toLowerCase());
  expect(exported.Galaxy ?? []).toEqual(source.Galaxy ?? []);

  const want = attributesByUuid(source);
  for (const u of dropped) want.delete(u);
  const got = attributesByUuid(exported);
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [uuid, a] of want) expect(attributeView(got.get(uuid)!, false), `attribute ${uuid}`).toEqual(attributeView(a, true));
  // Standalone attributes stay standalone.
  expect(((exported.Attribute as Json[]) ?? []).map((a) => a.uuid).sort()).toEqual(
    ((source.Attribute as Json[]) ?? []).map((a) => String(a.uuid).toLowerCase()).filter((u) => !dropped.has(u)).sort(),
  );

  const objectsWant = new Map(((source.Object as Json[]) ?? []).map((o) => [String(o.uuid).toLowerCase(), o]));
  const objectsGot = new Map(((exported.Object as Json[]) ?? []).map((o) => [o.uuid as string, o]));
  expect([...objectsGot.keys()].sort()).toEqual([...objectsWant.keys()].sort());
  for (const [uuid, o] of objectsWant) expect(objectView(objectsGot.get(uuid)!), `object ${uuid}`).toEqual(objectView(o));
}

describe("round trip over every shared MISP event", () => {
  it("finds the real files", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(30);
    expect(FILES).toContain(INVALID_FILE);
  });

  it.each(FILES.filter((f) => f !== INVALID_FILE))("%s: import (201), export, compare field by field", async (file) => {
    const doc = readEvent(file);
    const source = inner(doc);
    const beforeChanges = await maxChangeId();
    const res = await importEvent(doc);
    expect(res.status, res.text.slice(0, 1000)).toBe(201);
    const uuid = String(source.uuid).toLowerCase();
    expect(res.body.uuid).toBe(uuid);
    const total = attributesByUuid(source).size;
    expect(res.body.import).toMatchObject({
      created: true,
      changed: true,
      attributes: { created: total, updated: 0, unchanged: 0 },
      objects: { created: (source.Object ?? []).length, updated: 0, unchanged: 0 },
      skipped: [],
    });
    // One change record per created entity, in the same transaction.
    const changes = await changesSince(beforeChanges);
    const objects = (source.Object ?? []) as Json[];
    const references = objects.flatMap((o) => o.ObjectReference ?? []);
    const sightings = [...attributesByUuid(source).values()].flatMap((a) => a.Sighting ?? []);
    const kinds = (kind: string) => changes.filter((c) => c.kind === kind).map((c) => c.entity_uuid).sort();
    expect(kinds("event.created")).toEqual([uuid]);
    expect(kinds("attribute.created")).toEqual([...attributesByUuid(source).keys()].sort());
    expect(kinds("object.created")).toEqual(objects.map((o) => String(o.uuid).toLowerCase()).sort());
    expect(kinds("object_reference.created")).toEqual(references.map((r) => String(r.uuid).toLowerCase()).sort());
    expect(kinds("sighting.created")).toEqual(sightings.map((s) => String(s.uuid).toLowerCase()).sort());
    expect(changes).toHaveLength(1 + total + objects.length + references.length + sightings.length);
    expect(changes.every((c) => c.event_uuid === uuid)).toBe(true);

    const exported = await exportEvent(uuid);
    expect(exported.status, exported.text.slice(0, 500)).toBe(200);
    expect(Object.keys(exported.body)).toEqual(["Event"]);
    compareRoundTrip(source, exported.body.Event);

    // The exported document imports again as the very same event: nothing changes.
    const again = await importEvent(exported.body);
    expect(again.status, again.text.slice(0, 500)).toBe(200);
    expect(again.body.import.changed).toBe(false);
    expect((await changesSince(beforeChanges)).length).toBe(changes.length);
  });

  it(`${INVALID_FILE}: strict import answers 422 naming the TLSH value and writes nothing; on_invalid=skip drops and reports it`, async () => {
    const doc = readEvent(INVALID_FILE);
    const source = inner(doc);
    const index = (source.Attribute as Json[]).findIndex((a) => a.uuid === INVALID_UUID);
    expect(index).toBeGreaterThanOrEqual(0);
    const tables = ["events", "attributes", "objects", "event_tags", "attribute_tags", "change_records"];
    const before = await Promise.all(tables.map(count));

    const strict = await importEvent(doc);
    expect(strict.status).toBe(422);
    expect(strict.body.code).toBe("validation_error");
    expect(strict.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "Event", "Attribute", index, "value"], input: source.Attribute[index].value }),
    ]);
    expect(await Promise.all(tables.map(count))).toEqual(before);
    expect((await app.http.get(`/events/${source.uuid}`, { token: admin.token })).status).toBe(404);

    const skip = await importEvent(doc, "?on_invalid=skip");
    expect(skip.status, skip.text.slice(0, 500)).toBe(201);
    expect(skip.body.import.skipped).toEqual([
      expect.objectContaining({ loc: ["body", "Event", "Attribute", index, "value"], input: source.Attribute[index].value, msg: expect.any(String) }),
    ]);
    expect(skip.body.import.attributes.created).toBe(source.Attribute.length - 1);
    const exported = await exportEvent(source.uuid);
    expect(exported.status).toBe(200);
    compareRoundTrip(source, exported.body.Event, new Set([INVALID_UUID]));
  });
});

describe("re-import", () => {
  const FILE = "misp-events/57c4445b-c548-4654-af0b-4be3950d210f.json";
  let base: Json;
  let uuid: string;

  /** A copy of the event as another MISP instance would send it later. */
  const version = (mutate: (e: Json) => void): Json => {
    const copy = structuredClone(base);
    mutate(inner(copy));
    return copy;
  };
  const attributeRows = async () =>
    (await sql("SELECT uuid::text, value, timestamp::text FROM attributes a WHERE event_id = (SELECT id FROM events WHERE uuid = $1) ORDER BY uuid", [uuid])).rows;

  beforeAll(async () => {
    // Its own copy under fresh uuids, so that it does not depend on the round-trip tests.
    base = readEvent(FILE);
    const e = inner(base);
    e.uuid = crypto.randomUUID();
    for (const a of e.Attribute) a.uuid = crypto.randomUUID();
    uuid = e.uuid;
    const res = await importEvent(base);
    expect(res.status, res.text).toBe(201);
  });

  it("of the same document answers 200, duplicates nothing and records no change", async () => {
    const counts = await Promise.all(["events", "attributes", "event_tags", "tags", "change_records"].map(count));
    const jobs = (await rangeJobs("notify_changes")).length;
    const rows = await attributeRows();
    const res = await importEvent(base);
    expect(res.status, res.text).toBe(200);
    expect(res.body.import).toMatchObject({ created: false, changed: false, attributes: { created: 0, updated: 0 } });
    expect(await Promise.all(["events", "attributes", "event_tags", "tags", "change_records"].map(count))).toEqual(counts);
    expect((await rangeJobs("notify_changes")).length).toBe(jobs);
    expect(await attributeRows()).toEqual(rows);
  });

  it("with a newer timestamp updates exactly what changed, with one change record each and its consumer jobs", async () => {
    const e = inner(base);
    const changed = e.Attribute.find((a: Json) => a.type === "md5");
    const added = { uuid: crypto.randomUUID(), type: "ip-dst", category: "Network activity", value: "203.0.113.77", to_ids: true, timestamp: String(Number(e.timestamp) + 100) };
    const newer = version((v) => {
      v.timestamp = String(Number(v.timestamp) + 100);
      v.info = `${v.info} (revised)`;
      const a = v.Attribute.find((x: Json) => x.uuid === changed.uuid);
      a.value = "D41D8CD98F00B204E9800998ECF8427E";
      a.timestamp = String(Number(a.timestamp) + 100);
      // Same timestamp, different comment: not newer, so it must stay as it was.
      v.Attribute.find((x: Json) => x.type === "sha1").comment = "not newer, ignored";
      v.Attribute.push(added);
    });
    const before = await maxChangeId();
    const jobsBefore = await rangeJobs("notify_changes");
    const attrsBefore = await count("attributes");

    const res = await importEvent(newer);
    expect(res.status, res.text).toBe(200);
    expect(res.body.info).toMatch(/\(revised\)$/);
    expect(res.body.import).toMatchObject({ created: false, changed: true, attributes: { created: 1, updated: 1, unchanged: e.Attribute.length - 1 } });
    expect(await count("attributes")).toBe(attrsBefore + 1);

    const changes = await changesSince(before);
    expect(changes.map((c) => [c.kind, c.entity_uuid]).sort()).toEqual(
      [
        ["event.updated", uuid],
        ["attribute.updated", changed.uuid],
        ["attribute.created", added.uuid],
      ].sort(),
    );
    const jobs = (await rangeJobs("notify_changes")).slice(jobsBefore.length);
    expect(jobs).toEqual([{ first: Number(changes[0].id), last: Number(changes.at(-1)!.id) }]);

    const exported = (await exportEvent(uuid)).body.Event;
    const attrs = attributesByUuid(exported);
    expect(attrs.get(changed.uuid)).toMatchObject({ value: "d41d8cd98f00b204e9800998ecf8427e", timestamp: String(Number(changed.timestamp) + 100) });
    expect(attrs.get(added.uuid)).toMatchObject({ value: "203.0.113.77", type: "ip-dst" });
    expect(attrs.get(e.Attribute.find((x: Json) => x.type === "sha1").uuid)!.comment).toBe("Imported via the Freetext Import Tool");
    expect(exported.timestamp).toBe(String(Number(e.timestamp) + 100));
    base = newer;
  });

  it("with an older timestamp changes nothing", async () => {
    const older = version((v) => {
      v.timestamp = String(Number(v.timestamp) - 5000);
      v.info = "older version";
      v.Attribute[0].value = "https://example.org/older";
      v.Attribute[0].timestamp = String(Number(v.Attribute[0].timestamp) + 999_999);
    });
    const before = await maxChangeId();
    const rows = await attributeRows();
    const res = await importEvent(older);
    expect(res.status, res.text).toBe(200);
    expect(res.body.import.changed).toBe(false);
    expect(res.body.info).not.toBe("older version");
    expect(await attributeRows()).toEqual(rows);
    expect(await changesSince(before)).toEqual([]);
  });

  it("GraphQL importMispEvent answers like the REST route (unchanged re-import)", async () => {
    const res = await app.http.graphql(
      `mutation($e: JSON!) { importMispEvent(event: $e) { created changed attributes { created updated unchanged } event { uuid info } } }`,
      { e: base },
      admin.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.importMispEvent).toMatchObject({ created: false, changed: false, attributes: { created: 0, updated: 0 }, event: { uuid } });
    const viaGraphql = await app.http.graphql(`query($u: String!) { eventMispExport(uuid: $u) }`, { u: uuid }, admin.token);
    expect(viaGraphql.body.data.eventMispExport).toEqual((await exportEvent(uuid)).body);
  });
});

describe("imports at once", () => {
  it("of events sharing new tags in opposite orders both succeed, each tag created once", async () => {
    // Two writers inserting the same new rows in opposite orders each wait on the other's uncommitted
    // row: a deadlock (one import answered 500) unless every writer inserts them in one order. A
    // trigger slows each insert so that the two statements surely overlap.
    const run = crypto.randomUUID().slice(0, 8);
    const names = Array.from({ length: 20 }, (_, i) => `concurrent-${run}:tag-${String(i).padStart(2, "0")}`);
    await sql(`CREATE FUNCTION slow_tag_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.name LIKE 'concurrent-${run}:%' THEN PERFORM pg_sleep(0.03); END IF; RETURN NEW; END $$`);
    await sql("CREATE TRIGGER slow_tag_insert BEFORE INSERT ON tags FOR EACH ROW EXECUTE FUNCTION slow_tag_insert()");
    try {
      const docs = [names, [...names].reverse()].map((order, k) => ({
        Event: {
          uuid: crypto.randomUUID(),
          info: `Concurrent import ${k}`,
          Tag: order.map((name) => ({ name })),
          Attribute: [{ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `c${k}-${run}.example` }],
        },
      }));
      const answers = await Promise.all(docs.map((d) => importEvent(d)));
      expect(answers.map((r) => `${r.status} ${r.status === 201 ? "" : r.text.slice(0, 200)}`)).toEqual(["201 ", "201 "]);
      expect((await sql("SELECT count(*)::int AS n FROM tags WHERE name LIKE $1", [`concurrent-${run}:%`])).rows[0].n).toBe(20);
    } finally {
      await sql("DROP TRIGGER slow_tag_insert ON tags");
      await sql("DROP FUNCTION slow_tag_insert()");
    }
  });
  it("of one new event twice: one creates it (201), the other finds it stored (200), none answers 500", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const doc = {
      Event: {
        uuid: crypto.randomUUID(),
        info: `Imported twice ${run}`,
        timestamp: "1700000000",
        Attribute: [{ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `twice-${run}.example`, timestamp: "1700000000" }],
      },
    };
    // Slows the event's insert so that the second import looks for the event before the first commits.
    await sql(`CREATE FUNCTION slow_event_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.info = 'Imported twice ${run}' THEN PERFORM pg_sleep(0.3); END IF; RETURN NEW; END $$`);
    await sql("CREATE TRIGGER slow_event_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION slow_event_insert()");
    try {
      const answers = await Promise.all([importEvent(doc), importEvent(doc)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 201]);
      expect((await sql("SELECT count(*)::int AS n FROM attributes WHERE uuid = $1", [doc.Event.Attribute[0].uuid])).rows[0].n).toBe(1);
    } finally {
      await sql("DROP TRIGGER slow_event_insert ON events");
      await sql("DROP FUNCTION slow_event_insert()");
    }
  });

  it("of POST /events/ with one new uuid twice: one creates it (201), the other answers 409", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const uuid = crypto.randomUUID();
    await sql(`CREATE FUNCTION slow_event_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.info = 'Created twice ${run}' THEN PERFORM pg_sleep(0.3); END IF; RETURN NEW; END $$`);
    await sql("CREATE TRIGGER slow_event_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION slow_event_insert()");
    try {
      const create = () => app.http.post("/events/", { token: admin.token, json: { uuid, info: `Created twice ${run}`, distribution: 0 } });
      const answers = await Promise.all([create(), create()]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)!.body.code).toBe("conflict");
    } finally {
      await sql("DROP TRIGGER slow_event_insert ON events");
      await sql("DROP FUNCTION slow_event_insert()");
    }
  });

  it("of events by one new creator organisation both succeed, the organisation stored once", async () => {
    // The second writer checked only the name's index before inserting, then met the first's
    // uncommitted row in the uuid's index and failed (409) instead of waiting for it. A slow index
    // between the two (the name's rebuilt after it) holds the first writer between them.
    const run = crypto.randomUUID().slice(0, 8);
    const orgc = { uuid: crypto.randomUUID(), name: `Shared creator ${run}` };
    await sql(`CREATE FUNCTION slow_org_key(text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN $1; END $$`);
    await sql(`CREATE INDEX slow_org_key ON organisations (slow_org_key(name)) WHERE name = 'Shared creator ${run}'`);
    await sql("DROP INDEX organisations_name_key");
    await sql('CREATE UNIQUE INDEX organisations_name_key ON organisations ("name")');
    try {
      const docs = [0, 1].map((k) => ({
        Event: {
          uuid: crypto.randomUUID(),
          info: `One new creator ${k}`,
          Orgc: orgc,
          Attribute: [{ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `creator${k}-${run}.example` }],
        },
      }));
      const answers = await Promise.all(docs.map((d) => importEvent(d)));
      expect(answers.map((r) => `${r.status} ${r.status === 201 ? "" : r.text.slice(0, 200)}`)).toEqual(["201 ", "201 "]);
      const stored = await sql("SELECT count(*)::int AS n FROM organisations WHERE uuid = $1", [orgc.uuid]);
      expect(stored.rows[0].n).toBe(1);
      const creators = await sql("SELECT DISTINCT o.uuid::text FROM events e JOIN organisations o ON o.id = e.orgc_id WHERE e.uuid = ANY($1::uuid[])", [docs.map((d) => d.Event.uuid)]);
      expect(creators.rows).toEqual([{ uuid: orgc.uuid }]);
    } finally {
      await sql("DROP INDEX slow_org_key");
      await sql("DROP FUNCTION slow_org_key(text)");
    }
  });

  it("of events naming each other's new organisations (creator, sighting) both succeed: the deadlock's victim is written again", async () => {
    // A creates X (its creator) then needs Y (a sighting's); B creates Y then needs X. No single
    // order can hold across the parts of a document, so the victim's transaction is run again.
    const run = crypto.randomUUID().slice(0, 8);
    const orgs = ["X", "Y"].map((n) => ({ uuid: crypto.randomUUID(), name: `Concurrent ${n} ${run}` }));
    await sql(`CREATE FUNCTION slow_org_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.name LIKE 'Concurrent % ${run}' THEN PERFORM pg_sleep(0.3); END IF; RETURN NEW; END $$`);
    await sql("CREATE TRIGGER slow_org_insert BEFORE INSERT ON organisations FOR EACH ROW EXECUTE FUNCTION slow_org_insert()");
    try {
      const docs = [0, 1].map((k) => ({
        Event: {
          uuid: crypto.randomUUID(),
          info: `Concurrent organisations ${k}`,
          Orgc: orgs[k],
          Attribute: [
            {
              uuid: crypto.randomUUID(),
              type: "domain",
              category: "Network activity",
              value: `o${k}-${run}.example`,
              Sighting: [{ uuid: crypto.randomUUID(), type: "0", date_sighting: "1700000000", Organisation: orgs[1 - k] }],
            },
          ],
        },
      }));
      const answers = await Promise.all(docs.map((d) => importEvent(d)));
      expect(answers.map((r) => `${r.status} ${r.status === 201 ? "" : r.text.slice(0, 200)}`)).toEqual(["201 ", "201 "]);
      const stored = await sql("SELECT name, count(*)::int AS n FROM organisations WHERE uuid = ANY($1::uuid[]) GROUP BY name ORDER BY name", [orgs.map((o) => o.uuid)]);
      expect(stored.rows).toEqual(orgs.map((o) => ({ name: o.name, n: 1 })));
      const sightings = await sql(
        `SELECT e.info, o.name FROM sightings s JOIN events e ON e.id = s.event_id JOIN organisations o ON o.id = s.org_id WHERE e.uuid = ANY($1::uuid[]) ORDER BY e.info`,
        [docs.map((d) => d.Event.uuid)],
      );
      expect(sightings.rows).toEqual([0, 1].map((k) => ({ info: `Concurrent organisations ${k}`, name: orgs[1 - k].name })));
    } finally {
      await sql("DROP TRIGGER slow_org_insert ON organisations");
      await sql("DROP FUNCTION slow_org_insert()");
    }
  });
});

describe("change records and their consumer jobs", () => {
  it.each(["index_changes", "correlate_changes", "notify_changes"])("every change record is covered by exactly one %s job range, queued by its own write", async (task) => {
    const ids = (await sql("SELECT id::text FROM change_records ORDER BY id")).rows.map((r) => Number(r.id));
    const jobs = await rangeJobs(task);
    expect(ids.length).toBeGreaterThan(0);
    const covered = ids.map((id) => jobs.filter((j) => j.first <= id && id <= j.last).length);
    expect(covered.every((n) => n === 1)).toBe(true);
    // No empty or phantom ranges.
    for (const j of jobs) expect(ids.some((id) => id >= j.first && id <= j.last)).toBe(true);
    expect(await rangeJobs("dispatch_changes")).toEqual([]);
  });
});
