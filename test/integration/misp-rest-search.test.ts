/**
 * MISP's events/restSearch and attributes/restSearch driven by the real PyMISP (test/misp/
 * pymisp_rest_search.py) on both search backends: each filter's hit set, paging, tags OR/AND/NOT in
 * MISP's three forms, last, enforceWarninglist (the real DNS resolvers list), csv and text, other
 * organisations' events invisible and distribution honoured; then what PyMISP never sends: hostile
 * input, answered with MISP's error body and a 4xx, never a 500.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";
import { pymispScript, runPythonJson } from "../support/pymisp.ts";
import { sharedPath } from "../support/shared-data.ts";

const SCRIPT = pymispScript("pymisp_rest_search.py");
const DNS_V4 = "List of known IPv4 public DNS resolvers";
const SCOPES = [
  ...["read", "create", "update", "delete", "publish", "tag"].map((a) => `events:${a}`),
  ...["read", "create", "update", "delete", "tag"].map((a) => `attributes:${a}`),
  "objects:read", "objects:create", "tags:read", "tags:create", "sightings:read", "sightings:create", "correlations:read", "users:me", "user_settings:read",
];

type Call = { name: string; method?: "search" | "search_index"; kwargs: Record<string, unknown> };
interface EventResult { uuid: string; id: string; attributes: string[]; keys: string[]; published: boolean }
type Result = { events?: EventResult[]; attributes?: Record<string, unknown>[]; text?: string; errors?: [number, Record<string, unknown>] };

const pymisp = (url: string, key: string, calls: Call[]) =>
  runPythonJson<Record<string, Result>>([SCRIPT], { stdin: JSON.stringify({ url, key, calls: calls.map((c) => ({ method: "search", ...c })) }) });

const sorted = (xs: string[]) => [...xs].sort();

describe.each(SEARCH_BACKENDS)("MISP restSearch through PyMISP on $name", ({ env }) => {
  const run = crypto.randomBytes(4).toString("hex");
  const tag = (n: number) => `rs-${run}:t${n}`;
  const orgName = `rs-org-${run}`;
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let bulkKey: string;
  let readerKey: string;
  let otherOrgId: number;
  let warninglists = "";
  const ev: Record<string, { uuid: string; id: string }> = {};
  const oddMd5 = crypto.createHash("md5").update(`odd ${run}`).digest("hex");
  const odd = {
    meta: `Re.ex*+?^$()[]{}\\/-${run}`,
    percent: `100%-${run}`,
    pipe: `pipe|Text-${run}`,
    composite: `Setup-${run}.EXE|${oddMd5}`,
  };
  const at: Record<string, string> = {};

  const misp = (method: string, p: string, k: string, json?: unknown) =>
    app.http.request(method, `/misp/${p}`, { authorization: k, headers: { accept: "application/json" }, ...(json === undefined ? {} : { json }) });
  const search = (calls: Call[], k = key) => pymisp(`${app.url}/misp/`, k, calls);
  const addEvent = async (name: string, k: string, event: Record<string, unknown>) => {
    const res = await misp("POST", "events/add", k, { Event: event });
    expect(res.status, res.text).toBe(200);
    ev[name] = { uuid: res.body.Event.uuid, id: res.body.Event.id };
    const all = [...res.body.Event.Attribute, ...res.body.Event.Object.flatMap((o: { Attribute: unknown[] }) => o.Attribute)] as { uuid: string; value: string }[];
    for (const a of all) at[a.value] = a.uuid;
  };

  beforeAll(async () => {
    // The one warninglist the tests enable: importing the whole source took seconds per backend.
    warninglists = fs.mkdtempSync(path.join(os.tmpdir(), "wb-rs-warninglists-"));
    fs.cpSync(sharedPath("misp-warninglists", "lists/public-dns-v4"), path.join(warninglists, "lists/public-dns-v4"), { recursive: true });
    app = await startTestApp("misp-rest-search", { ROLE: "all", WARNINGLISTS_SOURCE: warninglists, ...env() });
    const admin = await loginAdmin(app);
    const orgId = await createOrganisation(app, admin, orgName);
    const user = await createUser(app, admin, [...SCOPES, "api_keys:create"], orgId);
    otherOrgId = await createOrganisation(app, admin);
    const other = await createUser(app, admin, [...SCOPES, "api_keys:create"], otherOrgId);
    const keyOf = async (u: typeof user, scopes = SCOPES) => (await app.http.post("/api-keys/", { token: u.token, json: { name: "misp", scopes } })).body.token as string;
    key = await keyOf(user);
    readerKey = await keyOf(user, ["events:read", "attributes:read"]);
    otherKey = await keyOf(other);
    bulkKey = await keyOf(await createUser(app, admin, [...SCOPES, "api_keys:create"], await createOrganisation(app, admin)));
    expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
    const [{ id }] = (await app.booted.ctx.db.pool.query<{ id: number }>("SELECT id FROM warninglists WHERE name = $1", [DNS_V4])).rows;
    expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);

    await addEvent("alpha", key, {
      info: `rs alpha ${run}`, date: "2024-01-10", distribution: "1", Tag: [{ name: tag(1) }, { name: tag(2) }],
      Attribute: [
        { type: "ip-dst", value: "8.8.8.8", to_ids: true },
        { type: "ip-dst", value: "10.1.2.3", to_ids: true, comment: `needle-${run} here` },
        { type: "domain", value: `alpha-${run}.example`, to_ids: false, Tag: [{ name: tag(3) }] },
        { type: "domain", value: `shared-${run}.example`, to_ids: false },
      ],
    });
    await addEvent("beta", key, {
      info: `rs beta ${run}`, date: "2024-03-05", distribution: "0", Tag: [{ name: tag(1) }],
      Attribute: [{ type: "md5", category: "Payload delivery", value: crypto.createHash("md5").update(run).digest("hex"), to_ids: true }],
      Object: [{ name: "domain-ip", "meta-category": "network", Attribute: [{ type: "domain", object_relation: "domain", value: `beta-${run}.example`, comment: 'say "hi", twice', Tag: [{ name: tag(4) }] }] }],
    });
    await addEvent("gamma", key, {
      info: `rs gamma ${run}`, date: "2024-06-01", distribution: "1", Tag: [{ name: tag(2) }],
      Attribute: [{ type: "url", value: `https://gamma-${run}.example/x`, to_ids: false }, { type: "domain", value: `gone-${run}.example` }],
    });
    // A third organisation's: 250 matches in one event and one in another, so that finding both events walks past pages of repeats.
    await addEvent("bulk", bulkKey, { info: `rs bulk ${run}`, distribution: "0", Attribute: Array.from({ length: 250 }, (_, i) => ({ type: "ip-src", value: `10.9.${Math.floor(i / 200)}.${i % 200}`, comment: `bulk-${run}` })) });
    await addEvent("bulk2", bulkKey, { info: `rs bulk2 ${run}`, distribution: "0", Attribute: [{ type: "ip-src", value: "10.9.9.9", comment: `bulk-${run}` }] });
    await addEvent("theirsPrivate", otherKey, { info: `rs theirs private ${run}`, distribution: "0", Tag: [{ name: tag(1) }, { name: tag(5) }], Attribute: [{ type: "domain", value: `shared-${run}.example` }, { type: "domain", value: `private-${run}.example` }] });
    // A third organisation's, for everyone: values with the characters a pattern, a regex or MISP's LIKE reads.
    await addEvent("odd", bulkKey, {
      info: `rs odd ${run}`, distribution: "3",
      Attribute: [
        { type: "text", value: odd.meta },
        { type: "text", value: odd.percent },
        { type: "text", value: odd.pipe },
        { type: "filename|md5", category: "Artifacts dropped", value: odd.composite },
      ],
    });
    await addEvent("theirsPublic", otherKey, { info: `rs theirs public ${run}`, distribution: "3", Tag: [{ name: tag(1) }], Attribute: [{ type: "domain", value: `public-${run}.example` }, { type: "domain|ip", value: `composite-${run}.example|10.7.7.7` }] });
    // The two events with an attribute of that value: whose uuid `at` holds is the last one added; ours is looked up again.
    at[`shared-${run}.example`] = (await misp("GET", `events/view/${ev.alpha!.uuid}`, key)).body.Event.Attribute.find((a: { value: string }) => a.value === `shared-${run}.example`).uuid;
    expect((await misp("POST", `events/publish/${ev.alpha!.id}`, key)).status).toBe(200);
    expect((await misp("POST", `attributes/delete/${at[`gone-${run}.example`]}`, key)).status).toBe(200);
    await settled(app, 60_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    fs.rmSync(warninglists, { recursive: true, force: true });
  });

  const uuids = (r: Result) => sorted((r.events ?? []).map((e) => e.uuid));
  const attrs = (r: Result) => sorted((r.attributes ?? []).map((a) => String(a.uuid)));
  const evs = (...names: string[]) => sorted(names.map((n) => ev[n]!.uuid));
  const ats = (...values: string[]) => sorted(values.map((v) => at[v]!));

  it("filters events by value (exact and % wildcards), type, category, eventid, uuid, org, eventinfo and searchall", async () => {
    const r = await search([
      { name: "value", kwargs: { value: `alpha-${run}.example` } },
      { name: "wildcard", kwargs: { value: `%-${run}.example` } },
      { name: "valueList", kwargs: { value: [`alpha-${run}.example`, `beta-${run}.example`] } },
      { name: "type", kwargs: { type_attribute: "md5", eventinfo: `%${run}%` } },
      { name: "category", kwargs: { category: "Payload delivery", eventinfo: `%${run}%` } },
      { name: "eventid", kwargs: { eventid: ev.beta!.id } },
      { name: "uuid", kwargs: { uuid: ev.gamma!.uuid } },
      { name: "orgName", kwargs: { org: orgName } },
      { name: "orgId", kwargs: { org: String(otherOrgId) } },
      { name: "eventinfo", kwargs: { eventinfo: `rs beta ${run}` } },
      { name: "searchall", kwargs: { searchall: `%needle-${run}%` } },
      { name: "nothing", kwargs: { value: `nowhere-${run}.example` } },
      { name: "halfIp", kwargs: { value: "10.7.7.7" } },
      { name: "halfDomain", kwargs: { controller: "attributes", value: `composite-${run}.example` } },
      { name: "notInUrl", kwargs: { value: `gamma-${run}.example` } },
      // MISP compares values on a case-insensitive collation (utf8_unicode_ci).
      { name: "valueCase", kwargs: { value: `ALPHA-${run.toUpperCase()}.Example` } },
      { name: "wildcardCase", kwargs: { value: `%-${run.toUpperCase()}.EXAMPLE` } },
      { name: "halfCase", kwargs: { controller: "attributes", value: `Composite-${run.toUpperCase()}.example` } },
      { name: "searchallCase", kwargs: { searchall: `%ALPHA-${run.toUpperCase()}%` } },
    ]);
    expect(uuids(r.value!)).toEqual(evs("alpha"));
    // Their private event holds matching values: it stays invisible; gamma's only match is soft-deleted.
    expect(uuids(r.wildcard!)).toEqual(evs("alpha", "beta", "theirsPublic"));
    expect(uuids(r.valueList!)).toEqual(evs("alpha", "beta"));
    expect(uuids(r.type!)).toEqual(evs("beta"));
    expect(uuids(r.category!)).toEqual(evs("beta"));
    expect(uuids(r.eventid!)).toEqual(evs("beta"));
    expect(uuids(r.uuid!)).toEqual(evs("gamma"));
    expect(uuids(r.orgName!)).toEqual(evs("alpha", "beta", "gamma"));
    expect(uuids(r.orgId!)).toEqual(evs("theirsPublic"));
    expect(uuids(r.eventinfo!)).toEqual(evs("beta"));
    expect(uuids(r.searchall!)).toEqual(evs("alpha"));
    expect(r.nothing!.events).toEqual([]);
    // A half of a composite value, as MISP's value1/value2; not a word inside another type's value.
    expect(uuids(r.halfIp!)).toEqual(evs("theirsPublic"));
    expect(attrs(r.halfDomain!)).toEqual(ats(`composite-${run}.example|10.7.7.7`));
    expect(r.notInUrl!.events).toEqual([]);
    expect(uuids(r.valueCase!)).toEqual(evs("alpha"));
    expect(uuids(r.wildcardCase!)).toEqual(evs("alpha", "beta", "theirsPublic"));
    expect(attrs(r.halfCase!)).toEqual(ats(`composite-${run}.example|10.7.7.7`));
    expect(uuids(r.searchallCase!)).toEqual(evs("alpha"));
    // MISP's shape: string ids, booleans, the event's attributes and its objects' (the soft-deleted one left out).
    const alpha = r.value!.events![0]!;
    expect(alpha.id).toBe(ev.alpha!.id);
    expect(alpha.published).toBe(true);
    expect(alpha.attributes).toEqual(ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    const gamma = r.uuid!.events![0]!;
    expect(gamma.attributes).toEqual(ats(`https://gamma-${run}.example/x`));
  }, 120_000);

  it("filters by tags in MISP's forms: a list, !tag, a&&b, and PyMISP's build_complex_query OR/AND/NOT", async () => {
    const r = await search([
      { name: "or", kwargs: { tags: [tag(1)] } },
      { name: "andDict", kwargs: { tags: { AND: [tag(1), tag(2)] } } },
      { name: "notDict", kwargs: { tags: { OR: [tag(1), tag(2)], NOT: [tag(2)] } } },
      { name: "bang", kwargs: { tags: [tag(2), `!${tag(1)}`] } },
      { name: "ampersands", kwargs: { tags: `${tag(2)}&&!${tag(1)}` } },
      { name: "wildcard", kwargs: { tags: `rs-${run}:%` } },
      { name: "attributeTag", kwargs: { tags: tag(3) } },
      { name: "attrOwn", kwargs: { controller: "attributes", tags: tag(3) } },
      { name: "attrInherited", kwargs: { controller: "attributes", tags: tag(2), to_ids: 1 } },
      { name: "attrNot", kwargs: { controller: "attributes", tags: { OR: [tag(1)], NOT: [tag(3)] }, org: orgName } },
    ]);
    expect(uuids(r.or!)).toEqual(evs("alpha", "beta", "theirsPublic"));
    expect(uuids(r.andDict!)).toEqual(evs("alpha"));
    expect(uuids(r.notDict!)).toEqual(evs("beta", "theirsPublic"));
    expect(uuids(r.bang!)).toEqual(evs("gamma"));
    expect(uuids(r.ampersands!)).toEqual(evs("gamma"));
    expect(uuids(r.wildcard!)).toEqual(evs("alpha", "beta", "gamma", "theirsPublic"));
    // An event whose attribute carries the tag.
    expect(uuids(r.attributeTag!)).toEqual(evs("alpha"));
    expect(attrs(r.attrOwn!)).toEqual(ats(`alpha-${run}.example`));
    // An attribute matches its event's tags too.
    expect(attrs(r.attrInherited!)).toEqual(ats("8.8.8.8", "10.1.2.3"));
    expect(attrs(r.attrNot!)).toEqual(ats("8.8.8.8", "10.1.2.3", `shared-${run}.example`, crypto.createHash("md5").update(run).digest("hex"), `beta-${run}.example`));
  }, 120_000);

  /**
   * Each column compared as MISP's schema collates it (db_schema.json, INSTALL/MYSQL.sql), not as a
   * MySQL default would: attributes.type, value1, value2 and comment are utf8mb3_unicode_ci (case
   * ignored); attributes.category, events.info and tags.name are utf8mb3_bin (case kept). A term is
   * a LIKE pattern only when it starts or ends with `%` (AppModel::generic_add_filter), except tags
   * (Tag::findTagIdsByTagNames: always LIKE, a number is a tag id) and searchall (one LIKE as given).
   */
  it("compares each column with MISP's collation and LIKE rules: type, comment, value1/value2, category, eventinfo, tags, searchall", async () => {
    const find = async (controller: "events" | "attributes", body: Record<string, unknown>) => {
      const res = await misp("POST", `${controller}/restSearch`, key, { ...body, ...(controller === "events" ? { metadata: 1 } : {}) });
      expect(res.status, `${JSON.stringify(body)}: ${res.text.slice(0, 200)}`).toBe(200);
      return sorted(controller === "events" ? res.body.response.map((e: { Event: { uuid: string } }) => e.Event.uuid) : res.body.response.Attribute.map((a: { uuid: string }) => a.uuid));
    };
    const alphaIps = ats("8.8.8.8", "10.1.2.3");
    expect(await find("attributes", { type: "IP-DST", eventid: ev.alpha!.id })).toEqual(alphaIps);
    expect(await find("attributes", { type: "%-DST", eventid: ev.alpha!.id })).toEqual(alphaIps);
    expect(await find("attributes", { type: "ip_dst", eventid: ev.alpha!.id })).toEqual([]);
    expect(await find("attributes", { type: "%p_dst", eventid: ev.alpha!.id })).toEqual(alphaIps);
    expect(await find("attributes", { type: "!IP-DST", eventid: ev.alpha!.id })).toEqual(ats(`alpha-${run}.example`, `shared-${run}.example`));
    expect(await find("events", { category: "Payload delivery", eventinfo: `%${run}` })).toEqual(evs("beta"));
    expect(await find("events", { category: "payload delivery", eventinfo: `%${run}` })).toEqual([]);
    expect(await find("events", { category: "Payload%", eventinfo: `%${run}` })).toEqual(evs("beta"));

    expect(await find("attributes", { comment: `NEEDLE-${run.toUpperCase()} HERE` })).toEqual(ats("10.1.2.3"));
    expect(await find("attributes", { comment: `%needle-${run}%` })).toEqual(ats("10.1.2.3"));
    expect(await find("attributes", { comment: `needle-${run}` })).toEqual([]);
    expect(await find("attributes", { comment: 'SAY "HI", TWICE' })).toEqual(ats(`beta-${run}.example`));
    expect(await find("events", { comment: [`%NEEDLE-${run.toUpperCase()}%`, `bulk-${run}`] })).toEqual(evs("alpha"));
    expect(await find("attributes", { comment: `!%needle-${run}%`, eventid: ev.alpha!.id })).toEqual(ats("8.8.8.8", `alpha-${run}.example`, `shared-${run}.example`));

    // value1 / value2 (attributes/restSearch's, here on events too): a half of a composite value, ignoring case.
    expect(await find("attributes", { value1: `SETUP-${run}.exe` })).toEqual(ats(odd.composite));
    expect(await find("attributes", { value2: oddMd5.toUpperCase() })).toEqual(ats(odd.composite));
    expect(await find("attributes", { value1: oddMd5 })).toEqual([]);
    expect(await find("attributes", { value2: `setup-${run}.exe` })).toEqual([]);
    expect(await find("attributes", { value1: "%.exe", eventid: ev.odd!.id })).toEqual(ats(odd.composite));
    expect(await find("attributes", { value2: "%.exe", eventid: ev.odd!.id })).toEqual([]);
    expect(await find("attributes", { value2: "10.7.7.7" })).toEqual(ats(`composite-${run}.example|10.7.7.7`));
    expect(await find("attributes", { value1: "10.7.7.7" })).toEqual([]);
    // Of another type value1 is the value (a | in it included) and value2 is empty.
    expect(await find("attributes", { value1: `ALPHA-${run}.example` })).toEqual(ats(`alpha-${run}.example`));
    expect(await find("attributes", { value1: odd.pipe.toUpperCase() })).toEqual(ats(odd.pipe));
    expect(await find("attributes", { value2: `alpha-${run}.example` })).toEqual([]);
    expect(await find("attributes", { value2: "%", eventid: ev.alpha!.id })).toEqual(ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    expect(await find("events", { value1: `setup-${run}.exe` })).toEqual(evs("odd"));
    // uuid on events: the event's, or one of its attributes' (Event::set_filter_uuid).
    expect(await find("events", { uuid: [at[`alpha-${run}.example`]!.toUpperCase(), ev.gamma!.uuid] })).toEqual(evs("alpha", "gamma"));
    expect(await find("events", { uuid: `!${at[`beta-${run}.example`]}`, org: orgName })).toEqual(evs("alpha", "gamma"));

    expect(await find("events", { eventinfo: [`rs alpha ${run}`, `rs beta ${run}`] })).toEqual(evs("alpha", "beta"));
    expect(await find("events", { eventinfo: `RS ALPHA ${run}` })).toEqual([]);
    expect(await find("events", { eventinfo: `rs_alpha ${run}` })).toEqual([]);
    expect(await find("events", { eventinfo: `%rs_alpha ${run}` })).toEqual(evs("alpha"));
    expect(await find("events", { eventinfo: `%${run}&&!rs alpha ${run}`, org: orgName })).toEqual(evs("beta", "gamma"));
    expect(await find("attributes", { eventinfo: `rs gamma ${run}` })).toEqual(ats(`https://gamma-${run}.example/x`));

    const tagId = (await misp("GET", "tags/index", key)).body.Tag.find((t: { name: string }) => t.name === tag(2)).id as string;
    expect(await find("events", { tags: tag(1).toUpperCase() })).toEqual([]);
    expect(await find("events", { tags: `rs-${run}:t_`, org: orgName })).toEqual(evs("alpha", "beta", "gamma"));
    expect(await find("events", { tags: tagId })).toEqual(evs("alpha", "gamma"));
    expect(await find("events", { tags: [Number(tagId)], org: orgName })).toEqual(evs("alpha", "gamma"));
    expect(await find("events", { tags: "2147483648" })).toEqual([]);
    expect(await find("events", { tag: tag(2) })).toEqual(evs("alpha", "gamma"));
    // NOT on events: the event's own tags (alpha's attribute carries t3, alpha does not).
    expect(await find("events", { tags: { NOT: [tag(3)] }, org: orgName })).toEqual(evs("alpha", "beta", "gamma"));
    expect(await find("events", { event_tags: tag(3) })).toEqual([]);
    // events/index (PyMISP's search_index) takes a tag's id as MISP's index does.
    const index = async (body: Record<string, unknown>) => {
      const res = await misp("POST", "events/index", key, body);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      return sorted(res.body.map((e: { uuid: string }) => e.uuid));
    };
    expect(await index({ tags: [tagId] })).toEqual(evs("alpha", "gamma"));
    expect(await index({ tags: [`!${tagId}`], eventinfo: run, org: orgName })).toEqual(evs("beta"));
    expect(await index({ tags: ["2147483647"] })).toEqual([]);
    expect(await index({ tags: ["99999999999"], eventinfo: run, org: orgName })).toEqual([]);
    expect(await index({ tags: [`!2147483647`], eventinfo: run, org: orgName })).toEqual(evs("alpha", "beta", "gamma"));

    expect(await find("events", { searchall: `needle-${run}` })).toEqual([]);
    expect(await find("events", { searchall: `%NEEDLE-${run.toUpperCase()}%` })).toEqual(evs("alpha"));
    expect(await find("events", { searchall: `%RS BETA ${run}%` })).toEqual([]);
    expect(await find("events", { searchall: `%rs beta ${run}%` })).toEqual(evs("beta"));
    expect(await find("events", { searchall: tag(3) })).toEqual(evs("alpha"));
    expect(await find("events", { searchall: `rs-${run}:t_`, org: orgName })).toEqual(evs("alpha", "beta", "gamma"));
    expect(await find("attributes", { searchall: `rs gamma ${run}` })).toEqual(ats(`https://gamma-${run}.example/x`));
    expect(await find("attributes", { searchall: tag(3) })).toEqual(ats(`alpha-${run}.example`));
    expect(await find("attributes", { searchall: tag(2), type: "ip-dst" })).toEqual(alphaIps);
  }, 120_000);

  /**
   * MISP's Event::restSearch hands `tags` NOT to fetchEvent as blockedAttributeTags: the events the
   * query found come without the attributes that carry one of those tags themselves (their objects'
   * included; the tags matched as the query's LIKE terms, a number a tag's id), whatever the event
   * carries; event_tags NOT drops none, and metadata answers have no attributes to drop.
   */
  it("tags NOT also drops the attributes carrying the tag from the events answered (json, csv, stix2), as MISP's blockedAttributeTags", async () => {
    const md5 = crypto.createHash("md5").update(run).digest("hex");
    const alphaAll = ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`);
    const alphaKept = ats("8.8.8.8", "10.1.2.3", `shared-${run}.example`);
    const tagId = (await misp("GET", "tags/index", key)).body.Tag.find((t: { name: string }) => t.name === tag(3)).id as string;
    const r = await search([
      { name: "bang", kwargs: { tags: [`!${tag(3)}`], org: orgName } },
      { name: "dict", kwargs: { tags: { OR: [tag(2)], NOT: [tag(3)] } } },
      { name: "pattern", kwargs: { tags: [tag(1), `!%-${run}:_3`], eventid: ev.alpha!.id } },
      { name: "byId", kwargs: { tags: `!${tagId}`, eventid: ev.alpha!.id } },
      { name: "objectAttribute", kwargs: { tags: { NOT: [tag(4)] }, eventid: ev.beta!.id } },
      { name: "pythonified", kwargs: { tags: { NOT: [tag(3)] }, eventid: ev.alpha!.id, pythonify: true } },
      // With its case (tags.name is utf8mb3_bin), an id no tag has, and the event's own tags only: nothing dropped.
      { name: "otherCase", kwargs: { tags: `!${tag(3).toUpperCase()}`, eventid: ev.alpha!.id } },
      { name: "unknownId", kwargs: { tags: "!2147483647", eventid: ev.alpha!.id } },
      { name: "eventTags", kwargs: { event_tags: `!${tag(3)}`, eventid: ev.alpha!.id } },
      { name: "csv", kwargs: { tags: `!${tag(3)}`, eventid: ev.alpha!.id, return_format: "csv" } },
      { name: "attributes", kwargs: { controller: "attributes", tags: `!${tag(3)}`, eventid: ev.alpha!.id } },
    ]);
    // The events the query finds are the same: none of them carries t3 itself.
    expect(uuids(r.bang!)).toEqual(evs("alpha", "beta", "gamma"));
    const alpha = (x: Result) => x.events!.find((e) => e.uuid === ev.alpha!.uuid)!.attributes;
    expect(alpha(r.bang!)).toEqual(alphaKept);
    expect(r.bang!.events!.find((e) => e.uuid === ev.beta!.uuid)!.attributes).toEqual(ats(md5, `beta-${run}.example`));
    expect(uuids(r.dict!)).toEqual(evs("alpha", "gamma"));
    expect(alpha(r.dict!)).toEqual(alphaKept);
    expect(alpha(r.pattern!)).toEqual(alphaKept);
    expect(alpha(r.byId!)).toEqual(alphaKept);
    expect(r.objectAttribute!.events![0]!.attributes).toEqual(ats(md5));
    expect(alpha(r.pythonified!)).toEqual(alphaKept);
    for (const name of ["otherCase", "unknownId", "eventTags"]) expect(alpha(r[name]!), name).toEqual(alphaAll);
    expect(r.csv!.text).not.toContain(`alpha-${run}.example`);
    expect(r.csv!.text).toContain("10.1.2.3");
    // attributes/restSearch: NOT leaves out the attributes carrying it or whose event does, as before.
    expect(attrs(r.attributes!)).toEqual(alphaKept);
    const stix = await misp("POST", "events/restSearch", key, { returnFormat: "stix2", eventid: ev.alpha!.id, tags: `!${tag(3)}` });
    expect(stix.status, stix.text).toBe(200);
    expect(stix.text).toContain("10.1.2.3");
    expect(stix.text).not.toContain(`alpha-${run}.example`);
    const metadata = await misp("POST", "events/restSearch", key, { eventid: ev.alpha!.id, tags: `!${tag(3)}`, metadata: 1 });
    expect(metadata.body.response.map((e: { Event: { uuid: string } }) => e.Event.uuid)).toEqual([ev.alpha!.uuid]);
  }, 120_000);

  /**
   * events/index as MISP's EventsController::__setIndexFilterConditions parses it: eventinfo `|`
   * pieces, each `lower(info) LIKE '%piece%'` (one of them; `!piece` none), org as a list or `|`
   * pieces (a number an id, a uuid as written, a name in any case; one naming no organisation finds
   * nothing, a `!` one naming none is no condition), tags compared with their case (tags.name is
   * utf8mb3_bin), `a|b` OR and `a&b` AND.
   */
  it("events/index: eventinfo with | and !, several organisations with !, tags with their case, | and &", async () => {
    const orgUuid = (await misp("GET", `events/view/${ev.alpha!.id}`, key)).body.Event.Orgc.uuid as string;
    const index = async (body: Record<string, unknown>) => {
      const res = await misp("POST", "events/index", key, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text.slice(0, 200)}`).toBe(200);
      return sorted(res.body.map((e: { uuid: string }) => e.uuid));
    };
    const visible = evs("alpha", "beta", "gamma", "odd", "theirsPublic");
    expect(await index({ eventinfo: run })).toEqual(visible);
    // MISP's attribute_count, wherever an answer shows the event's metadata: its live attributes,
    // those inside objects too (beta: one standalone, one in its object; gamma: one of two deleted).
    const counts = (events: { uuid: string; attribute_count: string }[]) => Object.fromEntries(events.map((e) => [e.uuid, e.attribute_count]));
    const expected = { [ev.beta!.uuid]: "2", [ev.gamma!.uuid]: "1" };
    expect(counts((await misp("POST", "events/index", key, { eventinfo: `rs beta ${run}|rs gamma ${run}` })).body)).toEqual(expected);
    const metadata = await misp("POST", "events/restSearch", key, { eventid: [ev.beta!.id, ev.gamma!.id], metadata: 1 });
    expect(counts(metadata.body.response.map((e: { Event: { uuid: string; attribute_count: string } }) => e.Event))).toEqual(expected);
    const context = await misp("POST", "attributes/restSearch", key, { value: `beta-${run}.example`, includeContext: 1 });
    expect(counts(context.body.response.Attribute.map((a: { Event: { uuid: string; attribute_count: string } }) => a.Event))).toEqual({ [ev.beta!.uuid]: "2" });
    expect(await index({ eventinfo: `rs alpha ${run}|rs beta ${run}` })).toEqual(evs("alpha", "beta"));
    expect(await index({ eventinfo: `RS ALPHA ${run.toUpperCase()}` })).toEqual(evs("alpha"));
    expect(await index({ eventinfo: `${run}|!alpha|!BETA` })).toEqual(evs("gamma", "odd", "theirsPublic"));
    expect(await index({ eventinfo: `rs _amma ${run}` })).toEqual(evs("gamma"));
    expect(await index({ eventinfo: `rs%ta ${run}` })).toEqual(evs("beta"));
    expect(await index({ eventinfo: `rs\\_alpha ${run}` })).toEqual([]);
    expect(await index({ eventinfo: `!${run}`, org: orgName })).toEqual([]);

    expect(await index({ org: [orgName, String(otherOrgId)], eventinfo: run })).toEqual(evs("alpha", "beta", "gamma", "theirsPublic"));
    expect(await index({ org: `${orgName.toUpperCase()}|${otherOrgId}`, eventinfo: run })).toEqual(evs("alpha", "beta", "gamma", "theirsPublic"));
    expect(await index({ org: `!${orgName}`, eventinfo: run })).toEqual(evs("odd", "theirsPublic"));
    expect(await index({ org: [`!${orgName}`, `!${otherOrgId}`], eventinfo: run })).toEqual(evs("odd"));
    expect(await index({ org: { NOT: [orgUuid] }, eventinfo: run })).toEqual(evs("odd", "theirsPublic"));
    expect(await index({ org: orgUuid })).toEqual(evs("alpha", "beta", "gamma"));
    // MISP looks a uuid up as written (lower case) and finds nothing for one no organisation has, even beside one it knows.
    expect(await index({ org: orgUuid.toUpperCase() })).toEqual([]);
    expect(await index({ org: [orgName, `no-such-org-${run}`] })).toEqual([]);
    expect(await index({ org: "2147483646" })).toEqual([]);
    expect(await index({ org: `!no-such-org-${run}`, eventinfo: run })).toEqual(visible);

    expect(await index({ tags: tag(1) })).toEqual(evs("alpha", "beta", "theirsPublic"));
    expect(await index({ tags: [tag(1).toUpperCase()] })).toEqual([]);
    expect(await index({ tags: `!${tag(1).toUpperCase()}`, eventinfo: run, org: orgName })).toEqual(evs("alpha", "beta", "gamma"));
    expect(await index({ tags: `${tag(1)}|${tag(2)}` })).toEqual(evs("alpha", "beta", "gamma", "theirsPublic"));
    expect(await index({ tags: `${tag(1)}&${tag(2)}` })).toEqual(evs("alpha"));
    expect(await index({ tags: `${tag(2)}&!${tag(1)}` })).toEqual(evs("gamma"));
    expect(await index({ tags: [`${tag(1)}&${tag(2)}`] })).toEqual(evs("alpha"));
    // MISP leaves an `&` piece no tag has out (by name or id); none left finds nothing. t5 only
    // their private event carries: the same answer as a tag that does not exist.
    const t1 = evs("alpha", "beta", "theirsPublic");
    expect(await index({ tags: `${tag(1)}&nothing-${run}` })).toEqual(t1);
    expect(await index({ tags: `${tag(1)}&${tag(5)}` })).toEqual(t1);
    expect(await index({ tags: `${tag(1)}&2147483646&${tag(5)}` })).toEqual(t1);
    expect(await index({ tags: `${tag(1)}&${tag(2)}&nothing-${run}` })).toEqual(evs("alpha"));
    expect(await index({ tags: `nothing-${run}&${tag(5)}` })).toEqual([]);
    expect(await index({ tags: `nothing-${run}&!${tag(1)}` })).toEqual([]);
    expect(await index({ tags: { AND: [tag(2), tag(5)] } })).toEqual(evs("alpha", "gamma"));

    // The same through PyMISP's search_index.
    const r = await search([
      { name: "orgs", method: "search_index", kwargs: { org: [orgName, `!${otherOrgId}`], eventinfo: `${run}|!alpha` } },
      { name: "tags", method: "search_index", kwargs: { tags: [tag(2), `!${tag(1)}`] } },
      { name: "andTheirs", method: "search_index", kwargs: { tags: `${tag(2)}&${tag(5)}` } },
    ]);
    expect(uuids(r.orgs!)).toEqual(evs("beta", "gamma"));
    expect(uuids(r.tags!)).toEqual(evs("gamma"));
    expect(uuids(r.andTheirs!)).toEqual(evs("alpha", "gamma"));

    // Hostile values: what they match, or MISP's 400, never a 500.
    for (const eventinfo of ["\\", "%\\", "a\\", "|", "!", "_%_", "'; DROP TABLE events; --", "x".repeat(1000)]) await index({ eventinfo, limit: 5 });
    for (const org of ["|", "!", "!|!", "%", "_", ["!"], "00000000-0000-0000-0000-000000000000", "99999999999999999999"]) await index({ org, limit: 5 });
    const bad: Record<string, unknown>[] = [
      { eventinfo: "a\u0000b" }, { eventinfo: "x".repeat(1001) }, { eventinfo: ["a"] }, { eventinfo: { OR: "a" } },
      { org: "a\u0000b" }, { org: Array.from({ length: 101 }, (_, i) => String(i)) }, { org: { AND: ["a"] } }, { org: [[1]] },
      { tags: "a\u0000b" }, { tags: { XOR: ["a"] } },
    ];
    for (const body of bad) {
      const res = await misp("POST", "events/index", key, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: "/misp/events/index" });
    }
  }, 120_000);

  it("filters by time: last, publish_timestamp, published, from/to (event date), timestamp", async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await search([
      { name: "last", kwargs: { last: "1d", org: orgName } },
      { name: "last30m", kwargs: { last: "30m", org: orgName, controller: "attributes" } },
      { name: "publishRange", kwargs: { publish_timestamp: [now - 3600, now + 3600], org: orgName } },
      { name: "published", kwargs: { published: true, org: orgName } },
      { name: "unpublished", kwargs: { published: false, org: orgName } },
      { name: "from", kwargs: { date_from: "2024-03-01", org: orgName } },
      { name: "fromTo", kwargs: { date_from: "2024-03-01", date_to: "2024-03-31", org: orgName } },
      { name: "timestampFuture", kwargs: { timestamp: now + 86_400, org: orgName } },
      { name: "timestampRecent", kwargs: { timestamp: "1h", org: orgName, controller: "attributes", type_attribute: "md5" } },
    ]);
    expect(uuids(r.last!)).toEqual(evs("alpha"));
    expect(attrs(r.last30m!)).toEqual(ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    expect(uuids(r.publishRange!)).toEqual(evs("alpha"));
    expect(uuids(r.published!)).toEqual(evs("alpha"));
    expect(uuids(r.unpublished!)).toEqual(evs("beta", "gamma"));
    expect(uuids(r.from!)).toEqual(evs("beta", "gamma"));
    expect(uuids(r.fromTo!)).toEqual(evs("beta"));
    expect(r.timestampFuture!.events).toEqual([]);
    expect(attrs(r.timestampRecent!)).toEqual(ats(crypto.createHash("md5").update(run).digest("hex")));
  }, 120_000);

  it("attributes: to_ids, deleted, enforceWarninglist, the include* options, metadata, and limit/page as MISP pages", async () => {
    const r = await search([
      { name: "toIds", kwargs: { controller: "attributes", eventid: ev.alpha!.id, to_ids: 1 } },
      { name: "live", kwargs: { controller: "attributes", eventid: ev.gamma!.id } },
      { name: "deleted", kwargs: { controller: "attributes", eventid: ev.gamma!.id, deleted: 1 } },
      { name: "both", kwargs: { controller: "attributes", eventid: ev.gamma!.id, deleted: [0, 1] } },
      { name: "warned", kwargs: { controller: "attributes", eventid: ev.alpha!.id, type_attribute: "ip-dst" } },
      { name: "enforced", kwargs: { controller: "attributes", eventid: ev.alpha!.id, type_attribute: "ip-dst", enforceWarninglist: true } },
      { name: "enforcedEvent", kwargs: { eventid: ev.alpha!.id, enforceWarninglist: true } },
      { name: "includes", kwargs: { controller: "attributes", value: `alpha-${run}.example`, includeEventUuid: true, includeEventTags: true, includeContext: true, includeSightings: true, includeCorrelations: true } },
      { name: "metadata", kwargs: { eventid: ev.alpha!.id, metadata: true } },
      ...[1, 2, 3, 4].map((page) => ({ name: `page${page}`, kwargs: { controller: "attributes", org: orgName, limit: 2, page } })),
      { name: "index", method: "search_index" as const, kwargs: { tags: [tag(1)] } },
      { name: "pyEvents", kwargs: { tags: [tag(1)], pythonify: true } },
      { name: "pyAttributes", kwargs: { controller: "attributes", eventid: ev.alpha!.id, includeContext: true, includeCorrelations: true, includeEventTags: true, pythonify: true } },
    ]);
    expect(attrs(r.toIds!)).toEqual(ats("8.8.8.8", "10.1.2.3"));
    expect(attrs(r.live!)).toEqual(ats(`https://gamma-${run}.example/x`));
    expect(attrs(r.deleted!)).toEqual(ats(`gone-${run}.example`));
    expect(attrs(r.both!)).toEqual(ats(`https://gamma-${run}.example/x`, `gone-${run}.example`));
    expect(attrs(r.warned!)).toEqual(ats("8.8.8.8", "10.1.2.3"));
    expect(attrs(r.enforced!)).toEqual(ats("10.1.2.3"));
    expect(r.enforcedEvent!.events![0]!.attributes).toEqual(ats("10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    const a = r.includes!.attributes![0]! as Record<string, unknown> & { Tag: { name: string }[]; Event: { uuid: string; info: string } };
    expect(a).toMatchObject({ uuid: at[`alpha-${run}.example`], event_id: ev.alpha!.id, event_uuid: ev.alpha!.uuid, to_ids: false, type: "domain", Sighting: [], RelatedAttribute: [] });
    expect(typeof a.id).toBe("string");
    expect(sorted(a.Tag.map((t) => t.name))).toEqual([tag(1), tag(2), tag(3)]);
    expect(a.Event).toMatchObject({ uuid: ev.alpha!.uuid, info: `rs alpha ${run}` });
    expect(r.metadata!.events![0]!.keys).not.toContain("Attribute");
    expect(r.metadata!.events![0]!.keys).toContain("Tag");
    // Seven live attributes of ours, newest change first, two per page, each once.
    const pages = [1, 2, 3, 4].map((n) => attrs(r[`page${n}`]!));
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
    expect(sorted(pages.flat())).toEqual(sorted([...new Set(pages.flat())]));
    expect(pages.flat()).toHaveLength(7);
    expect(uuids(r.index!)).toEqual(evs("alpha", "beta", "theirsPublic"));
    // PyMISP loads what it gets into its own objects (pythonify), as scripts use them.
    expect(uuids(r.pyEvents!)).toEqual(evs("alpha", "beta", "theirsPublic"));
    expect(r.pyEvents!.events!.find((e) => e.uuid === ev.alpha!.uuid)!.attributes).toEqual(ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    expect(attrs(r.pyAttributes!)).toEqual(ats("8.8.8.8", "10.1.2.3", `alpha-${run}.example`, `shared-${run}.example`));
    const shared = r.pyAttributes!.attributes!.find((x) => x.uuid === at[`shared-${run}.example`])!;
    expect(shared.event_uuid).toBe(ev.alpha!.uuid);
    expect(shared.tags).toEqual(sorted([tag(1), tag(2)]));
  }, 120_000);

  it("orders by MISP's model fields (Attribute.value desc, Event.info, ...), ascending unless desc, pages included", async () => {
    const values = async (body: Record<string, unknown>) => {
      const res = await misp("POST", "attributes/restSearch", key, { eventid: ev.alpha!.id, ...body });
      expect(res.status, res.text).toBe(200);
      return res.body.response.Attribute.map((a: { value: string }) => a.value);
    };
    expect(await values({ order: "Attribute.value desc" })).toEqual([`shared-${run}.example`, `alpha-${run}.example`, "8.8.8.8", "10.1.2.3"]);
    expect(await values({ order: "value", limit: 2, page: 2 })).toEqual([`alpha-${run}.example`, `shared-${run}.example`]);
    expect(sorted(await values({ order: "type DESC", limit: 2 }))).toEqual(sorted(["8.8.8.8", "10.1.2.3"]));
    const events = await misp("POST", "events/restSearch", key, { tags: tag(1), order: "Event.info desc", metadata: 1 });
    expect(events.body.response.map((e: { Event: { uuid: string } }) => e.Event.uuid)).toEqual([ev.theirsPublic!.uuid, ev.beta!.uuid, ev.alpha!.uuid]);
    for (const [controller, order] of [["attributes", "Attribute.nope desc"], ["attributes", "Event.info"], ["events", "value"], ["events", "info; DROP TABLE events"], ["events", "constructor"], ["attributes", "Attribute.__proto__ desc"], ["attributes", "toString"]]) {
      const res = await misp("POST", `${controller}/restSearch`, key, { eventid: ev.alpha!.id, order });
      expect(res.status, order).toBe(400);
      expect(res.body).toMatchObject({ name: expect.stringMatching(/^order must be/), url: `/misp/${controller}/restSearch` });
    }
  }, 60_000);

  it("includeSightings: each attribute's sightings from one read for the page, left out for a key without sightings:read", async () => {
    const value = `shared-${run}.example`;
    const added = await misp("POST", `sightings/add/${at[value]}`, key, { source: `rs-${run}` });
    expect(added.status, added.text).toBe(200);
    const withSightings = async (k: string) => {
      const res = await misp("POST", "attributes/restSearch", k, { eventid: ev.alpha!.id, includeSightings: 1 });
      expect(res.status, res.text).toBe(200);
      return new Map<string, Record<string, unknown>>(res.body.response.Attribute.map((a: { uuid: string }) => [a.uuid, a]));
    };
    const found = await withSightings(key);
    expect(found.get(at[value]!)!.Sighting).toEqual([expect.objectContaining({ attribute_uuid: at[value], source: `rs-${run}`, type: "0", Organisation: { name: orgName } })]);
    expect(found.get(at[`alpha-${run}.example`]!)!.Sighting).toEqual([]);
    expect((await withSightings(readerKey)).get(at[value]!)).not.toHaveProperty("Sighting");
  }, 60_000);

  it("finds every event of an attribute filter whose matches crowd into one event, and pages through them", async () => {
    const r = await search([
      { name: "events", kwargs: { value: "10.9.%", type_attribute: "ip-src" } },
      ...[1, 2, 3, 4].map((page) => ({ name: `page${page}`, kwargs: { controller: "attributes", value: "10.9.%", limit: 100, page } })),
      { name: "odd", kwargs: { controller: "attributes", value: "10.9.%", limit: 60, page: 4 } },
    ], bulkKey);
    expect(uuids(r.events!)).toEqual(evs("bulk", "bulk2"));
    const pages = [1, 2, 3, 4].map((n) => attrs(r[`page${n}`]!));
    expect(pages.map((p) => p.length)).toEqual([100, 100, 51, 0]);
    expect(new Set(pages.flat()).size).toBe(251);
    // Offset 180: the second half of page 2 and the first of page 3, as pages of 100 hold them.
    expect(attrs(r.odd!)).toHaveLength(60);
  }, 120_000);

  it("answers MISP's csv (its columns, quoting, requested_attributes, headerless) and text", async () => {
    const md5 = crypto.createHash("md5").update(run).digest("hex");
    const r = await search([
      { name: "csv", kwargs: { controller: "attributes", eventid: ev.beta!.id, return_format: "csv", order: "timestamp asc" } },
      { name: "requested", kwargs: { controller: "attributes", eventid: ev.beta!.id, type_attribute: "md5", return_format: "csv", requested_attributes: ["value", "to_ids", "event_id"], headerless: true } },
      { name: "events", kwargs: { controller: "events", eventid: ev.beta!.id, return_format: "csv" } },
      { name: "text", kwargs: { controller: "attributes", org: orgName, type_attribute: "domain", return_format: "text" } },
    ]);
    const lines = r.csv!.text!.split("\n");
    expect(lines[0]).toBe("uuid,event_id,category,type,value,comment,to_ids,date,object_relation,attribute_tag,object_uuid,object_name,object_meta_category");
    const beta = lines.find((l) => l.includes(`beta-${run}.example`))!;
    expect(beta).toMatch(new RegExp(`^"${at[`beta-${run}.example`]}",${ev.beta!.id},"Network activity","domain","beta-${run}.example","say ""hi"", twice",1,\\d+,"domain","${tag(4)}","[0-9a-f-]{36}","domain-ip","network"$`));
    const hash = lines.find((l) => l.includes(md5))!;
    expect(hash).toMatch(new RegExp(`^"${at[md5]}",${ev.beta!.id},"Payload delivery","md5","${md5}","",1,\\d+,"","","","",""$`));
    expect(lines.filter((l) => l !== "")).toHaveLength(3);
    expect(r.csv!.text!.endsWith("\n\n")).toBe(true);
    expect(r.requested!.text).toBe(`"${md5}",1,${ev.beta!.id}\n\n`);
    // A column the attribute does not have, even one every object inherits, is empty.
    const inherited = await misp("POST", "attributes/restSearch", key, { eventid: ev.beta!.id, type: "md5", returnFormat: "csv", requested_attributes: ["value", "constructor", "__proto__"], headerless: 1 });
    expect(inherited.text).toBe(`"${md5}","",""\n\n`);
    expect(r.events!.text!.split("\n").filter((l) => l !== "")).toHaveLength(3);
    expect(sorted(r.text!.text!.trim().split("\n"))).toEqual(sorted([`alpha-${run}.example`, `shared-${run}.example`, `beta-${run}.example`]));
  }, 120_000);

  it("keeps other organisations' events invisible and distribution honoured, whoever searches", async () => {
    const r = await search(
      [
        { name: "mine", kwargs: { value: `shared-${run}.example` } },
        { name: "attrs", kwargs: { controller: "attributes", value: `%-${run}.example` } },
        { name: "tag", kwargs: { tags: tag(1) } },
        { name: "byId", kwargs: { eventid: ev.beta!.id } },
        { name: "byUuid", kwargs: { controller: "attributes", uuid: ev.beta!.uuid } },
      ],
      otherKey,
    );
    // They see their own two and our community-level event; never our organisation-only beta.
    expect(uuids(r.mine!)).toEqual(evs("alpha", "theirsPrivate"));
    const visible = attrs(r.attrs!);
    expect(visible).toContain(at[`alpha-${run}.example`]);
    expect(visible).toContain(at[`private-${run}.example`]);
    expect(visible).not.toContain(at[`beta-${run}.example`]);
    expect(uuids(r.tag!)).toEqual(evs("alpha", "theirsPrivate", "theirsPublic"));
    expect(r.byId!.events).toEqual([]);
    expect(r.byUuid!.attributes).toEqual([]);
    const mine = await search([{ name: "private", kwargs: { controller: "attributes", value: `private-${run}.example` } }]);
    expect(mine.private!.attributes).toEqual([]);
  }, 120_000);

  it("leaves out what a key's scopes do not cover (objects, sightings, correlations) instead of refusing the search", async () => {
    const res = await misp("POST", "attributes/restSearch", readerKey, { eventid: ev.beta!.uuid, type: "domain", returnFormat: "csv", includeSightings: 1, includeCorrelations: 1 });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("x-result-count")).toBe("1");
    expect(res.text.split("\n")[1]).toMatch(/,"[0-9a-f-]{36}","",""$/);
    const json = await misp("POST", "attributes/restSearch", readerKey, { eventid: ev.beta!.uuid, type: "domain", includeSightings: 1, includeCorrelations: 1 });
    expect(json.body.response.Attribute).toHaveLength(1);
    expect(json.body.response.Attribute[0]).toMatchObject({ uuid: at[`beta-${run}.example`], RelatedAttribute: [] });
    expect(json.body.response.Attribute[0].Sighting).toBeUndefined();
  }, 60_000);

  it("matches values as MISP: any case, either half of a composite or the whole, % and _ of a LIKE only at its ends, \\ its escape", async () => {
    const r = await search(
      [
        ["meta", odd.meta],
        ["metaCase", odd.meta.toUpperCase()],
        // MySQL's LIKE: `\\` takes the next character literally, so a backslash is written twice.
        ["metaLike", `%${odd.meta.slice(3).replace(/\\/g, "\\\\")}`],
        ["metaLikeUnescaped", `%${odd.meta.slice(3)}`],
        ["regexLooking", `Re.ex.*`],
        ["percent", odd.percent],
        ["percentInside", `10%-${run}`],
        ["percentEscaped", `%0\\%-${run}`],
        ["underscore", `%00_-${run}`],
        ["underscoreInside", `100_-${run}`],
        ["pipe", odd.pipe],
        ["pipeCase", odd.pipe.toUpperCase()],
        ["pipeHalf", "pipe"],
        ["whole", odd.composite],
        ["wholeCase", odd.composite.toLowerCase()],
        ["value1", `setup-${run}.exe`],
        ["value2", oddMd5.toUpperCase()],
        ["value1Like", `SETUP-${run}%`],
        ["value2Like", `%${oddMd5.slice(20)}`],
        ["not", { OR: [`%-${run}`, `%-${run}.exe`], NOT: [odd.percent.toUpperCase()] }],
      ].map(([name, value]) => ({ name: name as string, kwargs: { controller: "attributes", value } })),
    );
    const found = (name: string) => attrs(r[name]!);
    expect(found("meta")).toEqual(ats(odd.meta));
    expect(found("metaCase")).toEqual(ats(odd.meta));
    expect(found("metaLike")).toEqual(ats(odd.meta));
    expect(found("metaLikeUnescaped")).toEqual([]);
    expect(found("regexLooking")).toEqual([]);
    expect(found("percent")).toEqual(ats(odd.percent));
    expect(found("percentInside")).toEqual([]);
    expect(found("percentEscaped")).toEqual(ats(odd.percent));
    expect(found("underscore")).toEqual(ats(odd.percent));
    expect(found("underscoreInside")).toEqual([]);
    expect(found("pipe")).toEqual(ats(odd.pipe));
    expect(found("pipeCase")).toEqual(ats(odd.pipe));
    // Only a composite type's value has halves.
    expect(found("pipeHalf")).toEqual([]);
    for (const name of ["whole", "wholeCase", "value1", "value2", "value1Like", "value2Like"]) expect(found(name), name).toEqual(ats(odd.composite));
    expect(found("not")).toEqual(ats(odd.meta, odd.pipe, odd.composite));
    // On events: the event of the matching attribute.
    const events = await search([{ name: "half", kwargs: { value: `SETUP-${run}.exe`, metadata: true } }]);
    expect(uuids(events.half!)).toEqual(evs("odd"));
  }, 60_000);

  it("answers events found by attribute filters alone from the events' read, as the events search would: same order, soft-deleted events left out", async () => {
    await addEvent("softGone", bulkKey, { info: `rs soft ${run}`, distribution: "3", Attribute: [{ type: "domain", value: `soft-${run}.test` }] });
    expect((await app.http.request("DELETE", `/events/${ev.softGone!.uuid}`, { authorization: bulkKey })).status).toBe(204);
    await settled(app, 60_000);
    const ordered = async (body: Record<string, unknown>) => {
      const res = await misp("POST", "events/restSearch", key, { metadata: 1, ...body });
      expect(res.status, res.text).toBe(200);
      return (res.body.response as { Event: { uuid: string } }[]).map((e) => e.Event.uuid);
    };
    // `eventinfo: "%"` (every event) makes the answer the events search's: both orders agree.
    for (const value of [`%-${run}.example`, `%${run}%`]) {
      for (const order of [{}, { order: "timestamp asc" }]) {
        const read = await ordered({ value, ...order });
        expect(read.length, value).toBeGreaterThan(1);
        expect(read, `${value} ${JSON.stringify(order)}`).toEqual(await ordered({ value, eventinfo: "%", ...order }));
      }
    }
    // Its attribute is found among deleted ones; its event, soft-deleted, is not answered.
    const attributes = await misp("POST", "attributes/restSearch", key, { value: `soft-${run}.test`, deleted: [0, 1] });
    expect(attributes.body.response.Attribute).toHaveLength(1);
    expect(await ordered({ value: `soft-${run}.test`, deleted: [0, 1] })).toEqual([]);
    expect(await ordered({ value: `soft-${run}.test`, deleted: [0, 1], eventinfo: "%" })).toEqual([]);
  }, 60_000);

  it("answers values that look like patterns, regexes or query syntax with what they match, never an error", async () => {
    const hostile = ["*", "?", "\\", "%\\", "_", "%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%_%",
      "/.*/", ".*", "[a-z]+", "(a|b)", "a\"b", "AND", "NOT x", "x OR y", "value:*", "_exists_:value", "%\\%\\%", "é%", "%\u{1F600}", "x".repeat(1024), `%${"%".repeat(1000)}`];
    const checks: (() => Promise<void>)[] = [];
    for (const filter of ["value", "value1", "value2", "type", "category", "comment", "eventinfo", "tags", "searchall"]) {
      for (const value of hostile) {
        for (const controller of ["events", "attributes"]) {
          checks.push(async () => {
            const what = `${controller} ${filter} ${JSON.stringify(value).slice(0, 60)}`;
            const res = await misp("POST", `${controller}/restSearch`, key, { [filter]: value, limit: 5, metadata: 1 });
            expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(200);
            const hits = controller === "events" ? res.body.response : res.body.response.Attribute;
            // Only the patterns that are "any value" or "any value of at least n characters" find anything.
            if (!/^[%_\\]*$/.test(value) || value.includes("\\")) expect(hits, what).toEqual([]);
          });
        }
      }
    }
    // tags NOT on a full answer: each attribute's tags matched against the patterns (with no exponential backtracking).
    const short = hostile.filter((v) => v.length < 1024);
    checks.push(async () => {
      const res = await misp("POST", "events/restSearch", key, { tags: short.filter((v) => !/^[%_]*$/.test(v)).map((v) => `!${v}`), eventid: ev.alpha!.id });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.body.response[0].Event.Attribute).toHaveLength(4);
    });
    for (const value of short) {
      checks.push(async () => {
        const res = await misp("POST", "events/restSearch", key, { tags: `!${value}`, eventid: ev.alpha!.id });
        expect(res.status, `tags !${JSON.stringify(value).slice(0, 60)}: ${res.text.slice(0, 200)}`).toBe(200);
        // A pattern of nothing but % and _ matches alpha's own tags (14 characters) when short enough; any other, no tag.
        if (!/^[%_]*$/.test(value)) expect(res.body.response[0].Event.Attribute, value).toHaveLength(4);
      });
    }
    // Four requests at a time: the same checks, in a quarter of the wall time.
    for (let i = 0; i < checks.length; i += 4) await Promise.all(checks.slice(i, i + 4).map((c) => c()));
  }, 600_000);

  it("answers stix2 from the exports area's STIX 2.1 writer, and refuses formats it does not have with MISP's 404", async () => {
    const res = await misp("POST", "attributes/restSearch", key, { returnFormat: "stix2", eventid: ev.alpha!.id });
    expect(res.status, res.text).toBe(200);
    const bundle = JSON.parse(res.text) as { type: string; objects: { type: string; pattern?: string }[] };
    expect(bundle.type).toBe("bundle");
    expect(bundle.objects.some((o) => o.type === "indicator" && o.pattern?.includes("10.1.2.3"))).toBe(true);
    const events = await misp("POST", "events/restSearch", key, { returnFormat: "stix2", eventid: ev.alpha!.id });
    expect(events.status).toBe(200);
    expect((JSON.parse(events.text) as { objects: { type: string }[] }).objects.some((o) => o.type === "report")).toBe(true);
    const xml = await misp("POST", "events/restSearch", key, { returnFormat: "xml" });
    expect(xml.status).toBe(404);
    expect(xml.body).toEqual({ name: "Invalid output format.", message: "Invalid output format.", url: "/misp/events/restSearch" });
  }, 60_000);

  it("answers hostile input with MISP's error body and a 4xx, never a 500", async () => {
    const bad: unknown[] = [
      { value: "a\u0000b" },
      ...["value1", "value2", "type", "category", "comment", "eventinfo", "tags", "tag", "event_tags", "searchall"].flatMap((f) => [{ [f]: "a\u0000b" }, { [f]: "x".repeat(5000) }]),
      ...["value1", "value2", "comment", "eventinfo", "tags"].map((f) => ({ [f]: Array.from({ length: 500 }, (_, i) => `%${i}\\`) })),
      { comment: { OR: [{}] } },
      // Longer than the automaton OpenSearch builds for a pattern.
      ...["value", "value1", "comment", "eventinfo", "tags", "searchall"].map((f) => ({ [f]: `%${"x".repeat(1023)}` })),
      { limit: -1 },
      { limit: "ten" },
      { limit: 1_000_000 },
      { limit: 100, page: 1_000_000 },
      { page: 0, limit: 5 },
      { from: "2024-13-45" },
      { last: "yesterday-ish" },
      { timestamp: [1, 2, 3] },
      { tags: { OR: { x: 1 } } },
      { tags: { XOR: ["a"] } },
      { value: "x".repeat(5000) },
      { value: Array.from({ length: 500 }, (_, i) => String(i)) },
      { published: "maybe" },
      { requested_attributes: "value" },
      { eventid: { OR: [[1]] } },
    ];
    for (const body of bad) {
      for (const controller of ["events", "attributes"]) {
        const res = await misp("POST", `${controller}/restSearch`, key, body);
        expect(res.status, `${controller} ${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: `/misp/${controller}/restSearch` });
      }
    }
    for (const raw of ["[1, 2]", "\"value\"", "{\"value\": "]) {
      const res = await app.http.request("POST", "/misp/events/restSearch", { authorization: key, body: raw, contentType: "application/json" });
      expect(res.status, raw).toBeGreaterThanOrEqual(400);
      expect(res.status, raw).toBeLessThan(500);
    }
    // Unknown filters are ignored, as MISP does; a key without attributes:read is refused.
    const ignored = await misp("POST", "attributes/restSearch", key, { value: `alpha-${run}.example`, quickFilter: "x", sharinggroup: [1], withAttachments: 1 });
    expect(ignored.status).toBe(200);
    expect(ignored.body.response.Attribute).toHaveLength(1);
    const bare = await misp("GET", "events/restSearch", key);
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/^Restsearch queries using GET and no parameters are not allowed/);
    const byPath = await misp("GET", `attributes/restSearch/value:alpha-${run}.example/returnFormat:text`, key);
    expect(byPath.status).toBe(200);
    expect(byPath.text).toBe(`alpha-${run}.example\n`);
    const anonymous = await app.http.request("POST", "/misp/events/restSearch", { json: {} });
    expect(anonymous.status).toBe(403);
  }, 60_000);
});
