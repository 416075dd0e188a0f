/**
 * Documents stored before they carried their audience (`visible_to`, the distribution rule) are
 * the administrators' only until `reindexStaleAccess` writes them again from PostgreSQL, on each
 * backend (src/indexing/stale-access.ts): nothing is shown too widely meanwhile, and the
 * rewrite restores exactly what each organisation may read.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { mappingsFor } from "../../src/search/opensearch/mappings.ts";
import { reindexStaleAccess } from "../../src/indexing/stale-access.ts";
import { SearchService } from "../../src/modules/search/index.ts";
import type { IndexName, SearchAccess } from "../../src/search/search-index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { OPENSEARCH, SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";

const EVENT = crypto.randomUUID();
const OWN_ONLY = crypto.randomUUID();
const SHARED = crypto.randomUUID();
const tag = crypto.randomBytes(3).toString("hex");
const MISP_SCOPES = ["events:read", "attributes:read", "users:me", "user_settings:read"];
const valueOf = (uuid: string) => `${uuid.slice(0, 8)}-${tag}.example`;

describe.each(SEARCH_BACKENDS)("stale access on $name", ({ name, env }) => {
  let app: TestApp;
  let a: TestUser;
  let b: TestUser;
  let aKey: string;
  let backendEnv: Record<string, string>;

  const ids = async (index: IndexName, access: SearchAccess) => {
    const res = await app.booted.ctx.search.search({
      index, query: parseLucene(""), defaultFields: [], access, from: 0, size: 100, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 10_000,
    });
    return res.hits.map((h) => h.id).sort();
  };
  const withoutAudience = (source: Record<string, unknown>) => Object.fromEntries(Object.entries(source).filter(([k]) => k !== "visible_to"));
  /** The stored documents as an older indexer wrote them: without their audience (or what `older` leaves out). */
  const strip = async (index: IndexName, older = withoutAudience) => {
    const res = await app.booted.ctx.search.search({
      index, query: parseLucene(""), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size: 100, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 10_000,
    });
    await app.booted.ctx.search.bulkIndex(index, res.hits.map((h) => ({ id: h.id, source: older(h.source) })));
    await app.booted.ctx.search.refresh(index);
    return res.hits.length;
  };

  beforeAll(async () => {
    backendEnv = env();
    app = await startTestApp("stale-access", { ROLE: "all", ...backendEnv });
    const admin = await loginAdmin(app);
    a = await createUser(app, admin, [...MISP_SCOPES, "events:create", "attributes:create", "api_keys:create"], await createOrganisation(app, admin));
    aKey = (await app.http.post("/api-keys/", { token: a.token, json: { name: "misp", scopes: MISP_SCOPES } })).body.token as string;
    b = await createUser(app, admin, 3, await createOrganisation(app, admin));
    const attribute = (uuid: string, distribution: string) => ({ uuid, type: "domain", category: "Network activity", value: valueOf(uuid), distribution, timestamp: "1700000000" });
    const res = await app.http.post("/events/import", {
      token: a.token,
      json: { Event: { uuid: EVENT, info: "stale", distribution: "3", timestamp: "1700000000", Attribute: [attribute(OWN_ONLY, "0"), attribute(SHARED, "5")] } },
    });
    expect(res.status, res.text).toBe(201);
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("a document without an audience is the administrators' only until it is indexed again", async () => {
    const orgA = { admin: false, orgId: a.orgId };
    const orgB = { admin: false, orgId: b.orgId };
    expect(await ids("svc-attributes", orgB)).toEqual([SHARED]);
    expect(await ids("svc-attributes", orgA)).toEqual([OWN_ONLY, SHARED].sort());

    expect(await strip("svc-attributes")).toBe(2);
    expect(await strip("svc-events")).toBeGreaterThan(0);
    expect(await ids("svc-attributes", orgB)).toEqual([]);
    expect(await ids("svc-attributes", orgA)).toEqual([]);
    expect(await ids("svc-events", orgB)).toEqual([]);
    expect(await ids("svc-attributes", { admin: true, orgId: null })).toEqual([OWN_ONLY, SHARED].sort());

    const counts = await reindexStaleAccess(app.booted.ctx.db.pool, app.booted.ctx.search);
    expect(counts["svc-attributes"]).toBe(2);
    expect(counts["svc-events"]).toBeGreaterThan(0);
    await app.booted.ctx.search.refresh();
    expect(await ids("svc-attributes", orgB)).toEqual([SHARED]);
    expect(await ids("svc-attributes", orgA)).toEqual([OWN_ONLY, SHARED].sort());
    expect(await ids("svc-events", orgB)).toEqual([EVENT]);
    // Nothing is stale any more: a second pass writes nothing.
    expect(await reindexStaleAccess(app.booted.ctx.db.pool, app.booted.ctx.search)).toEqual({ "svc-events": 0, "svc-attributes": 0, "svc-correlations": 0 });
  });

  const byField = async (value: string) => {
    const res = await app.booted.ctx.search.search({
      index: "svc-attributes", query: parseLucene(`expanded.value:"${value}"`), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size: 10, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 10_000,
    });
    return res.hits.map((h) => h.id);
  };
  /** As an indexer before expanded.value wrote them. */
  const withoutValue = (source: Record<string, unknown>) => ({ ...source, expanded: Object.fromEntries(Object.entries(source.expanded as object).filter(([k]) => k !== "value")) });

  it("attributes indexed before expanded.value are still found by MISP's value match, and indexed again with it", async () => {
    const ask = (value: string) =>
      app.http.request("POST", "/misp/attributes/restSearch", { authorization: aKey, headers: { accept: "application/json" }, json: { value } });
    const found = async (value: string) => {
      const res = await ask(value);
      expect(res.status, res.text).toBe(200);
      return (res.body.response.Attribute as { uuid: string }[]).map((x) => x.uuid).sort();
    };
    const value = valueOf(OWN_ONLY);
    expect(await byField(value)).toEqual([OWN_ONLY]);
    expect(await new SearchService(app.booted.ctx).hasStaleDocuments("attributes", { wait: true })).toBe(false);

    expect(await strip("svc-attributes", withoutValue)).toBe(2);
    expect(await byField(value)).toEqual([]);
    expect(await new SearchService(app.booted.ctx).hasStaleDocuments("attributes", { wait: true })).toBe(true);
    // Found all the same, in capitals too, by the older form of the match, until the worker writes them again.
    expect(await found(value.toUpperCase())).toEqual([OWN_ONLY]);
    expect(await found(`%-${tag.toUpperCase()}.example`)).toEqual([OWN_ONLY, SHARED].sort());

    const counts = await reindexStaleAccess(app.booted.ctx.db.pool, app.booted.ctx.search);
    expect(counts).toEqual({ "svc-events": 0, "svc-attributes": 2, "svc-correlations": 0 });
    await app.booted.ctx.search.refresh();
    expect(await byField(value)).toEqual([OWN_ONLY]);
    expect(await new SearchService(app.booted.ctx).hasStaleDocuments("attributes", { wait: true })).toBe(false);
    expect(await found(value.toUpperCase())).toEqual([OWN_ONLY]);
  });

  it.runIf(name === "opensearch")("an OpenSearch index created before expanded.value gains the field at start, and its documents are indexed again with it", async () => {
    const index = `${backendEnv.OPENSEARCH_INDEX_PREFIX}svc-attributes`;
    const os = (method: string, path: string, body?: unknown) =>
      fetch(new URL(path, OPENSEARCH), { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const stored = await app.booted.ctx.search.search({
      index: "svc-attributes", query: parseLucene(""), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size: 100, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 10_000,
    });
    expect(stored.hits).toHaveLength(2);
    // The index as a version before the field created it, holding the documents that version wrote.
    const older = mappingsFor("svc-attributes") as { properties: { expanded: { properties: Record<string, unknown> } } };
    delete older.properties.expanded.properties.value;
    expect((await os("DELETE", `/${index}`)).status).toBe(200);
    expect((await os("PUT", `/${index}`, { mappings: older })).status).toBe(200);
    await app.booted.ctx.search.bulkIndex("svc-attributes", stored.hits.map((h) => ({ id: h.id, source: withoutValue(h.source) })));
    await app.booted.ctx.search.refresh("svc-attributes");
    const value = valueOf(SHARED);
    expect(await byField(value)).toEqual([]);

    // What a start does: the mapping gains the field; the worker's pass writes the documents again.
    await app.booted.ctx.search.ensureIndices();
    const mapping = (await (await os("GET", `/${index}/_mapping`)).json()) as Record<string, { mappings: typeof older }>;
    expect(mapping[index]!.mappings.properties.expanded.properties.value).toEqual({ type: "keyword", ignore_above: 8191 });
    expect(await new SearchService(app.booted.ctx).hasStaleDocuments("attributes", { wait: true })).toBe(true);
    expect((await reindexStaleAccess(app.booted.ctx.db.pool, app.booted.ctx.search))["svc-attributes"]).toBe(2);
    await app.booted.ctx.search.refresh();
    expect(await byField(value)).toEqual([SHARED]);
    expect(await new SearchService(app.booted.ctx).hasStaleDocuments("attributes", { wait: true })).toBe(false);
  });
});
