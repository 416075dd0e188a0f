/**
 * Leaving warninglisted attributes out of a search (MISP's `enforceWarninglist`), on both backends:
 * the Lucene way (`NOT _exists_:warnings.name`, alone or ANDed) and the search service's
 * `excludeWarninglisted` option, which the MISP-style API maps `enforceWarninglist` to. The real
 * "List of known IPv4 public DNS resolvers" is enabled; an event holds listed and unlisted values.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal.ts";
import { runAsPrincipal } from "../../src/auth/run-as.ts";
import type { SearchInput } from "../../src/modules/search/search.service.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const DNS_V4 = "List of known IPv4 public DNS resolvers";

describe.each(SEARCH_BACKENDS)("warninglisted attributes left out of search on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let user: TestUser;
  let principal: Principal;
  const event = crypto.randomUUID();
  const listed = [crypto.randomUUID(), crypto.randomUUID()];
  const unlisted = [crypto.randomUUID(), crypto.randomUUID()];
  const input = (query: string, more: Partial<SearchInput> = {}): SearchInput => ({ query, page: 1, size: 100, sortBy: "@timestamp", sortOrder: "desc", includeDeleted: false, ...more });
  const viaService = async (query: string, more: Partial<SearchInput> = {}) =>
    (await app.booted.services.search.search(principal, "attributes", input(query, more))).hits.map((h) => h.id).sort();
  const viaRest = async (query: string, index = "attributes") => {
    const res = await app.http.get(`/${index}/search?query=${encodeURIComponent(query)}&size=100`, { token: user.token });
    expect(res.status, res.text).toBe(200);
    return (res.body.results as { _id: string }[]).map((h) => h._id).sort();
  };

  beforeAll(async () => {
    app = await startTestApp("search-warninglisted", { ROLE: "all", WARNINGLISTS_SOURCE: sharedPath("misp-warninglists"), ...env() });
    admin = await loginAdmin(app);
    user = await createUser(app, admin, 3);
    principal = (await runAsPrincipal(app.booted.ctx.db.pool, user.id, ["*"]))!;
    expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
    const [{ id }] = (await app.booted.ctx.db.pool.query<{ id: number }>("SELECT id FROM warninglists WHERE name = $1", [DNS_V4])).rows;
    expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    const attributes = [
      { uuid: listed[0], type: "ip-dst", value: "8.8.8.8" },
      { uuid: listed[1], type: "ip-src|port", value: "9.9.9.9|53" },
      { uuid: unlisted[0], type: "ip-dst", value: "10.11.12.13" },
      { uuid: unlisted[1], type: "domain", value: `${crypto.randomBytes(4).toString("hex")}.example.org` },
    ];
    const res = await app.http.post("/events/import", { token: user.token, json: { Event: { uuid: event, info: "enforce warninglist", distribution: 1, Attribute: attributes } } });
    expect(res.status, res.text).toBe(201);
    await settled(app, 60_000);
  }, 120_000);
  afterAll(() => app?.close());

  it("Lucene: NOT _exists_:warnings.name leaves them out, alone or ANDed; _exists_ finds only them", async () => {
    expect(await viaRest(`event_uuid:"${event}" AND NOT _exists_:warnings.name`)).toEqual([...unlisted].sort());
    // A purely negative query: every other attribute (this test's are the only ones).
    expect(await viaRest("NOT _exists_:warnings.name")).toEqual([...unlisted].sort());
    expect(await viaRest("_exists_:warnings.name")).toEqual([...listed].sort());
    expect(await viaRest(`warnings.name:"${DNS_V4}"`)).toEqual([...listed].sort());
  });

  it("the search service's excludeWarninglisted does the same to any query, and applies to attribute searches only", async () => {
    expect(await viaService(`event_uuid:"${event}"`)).toEqual([...listed, ...unlisted].sort());
    expect(await viaService(`event_uuid:"${event}"`, { excludeWarninglisted: true })).toEqual([...unlisted].sort());
    expect(await viaService("", { excludeWarninglisted: true })).toEqual([...unlisted].sort());
    expect(await viaService("value:8.8.8.8 OR value:10.11.12.13", { excludeWarninglisted: true })).toEqual([unlisted[0]]);
    expect(await viaService(`NOT event_uuid:"${event}"`, { excludeWarninglisted: true })).toEqual([]);
    expect(await viaService(`event_uuid:"${event}"`, { excludeWarninglisted: false })).toHaveLength(4);
    await expect(app.booted.services.search.search(principal, "events", input("*", { excludeWarninglisted: true }))).rejects.toMatchObject({ status: 422 });
  });
});
