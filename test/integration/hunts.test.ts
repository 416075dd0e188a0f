/**
 * Search hunts end to end on each search backend (the OpenSearch pass needs OPENSEARCH_URL): real
 * feed events imported through the API and indexed by the worker (ROLE=all), hunts created, run,
 * re-run after the data changed (is_new, history, cached results, alerts for first run, changed
 * count and same count with new hits), history cleared, and the GraphQL twins.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // 23 domains, tags tlp:clear + infoblox
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4"; // 210 domains
const feedEvent = (uuid: string) => JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8"));

describe.each(SEARCH_BACKENDS)("search hunts on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // role 3 ("user"): hunts:*, events:read, attributes:read, correlations:read
  let outsider: TestUser; // role 3 in another organisation
  const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

  async function createHunt(user: TestUser, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await app.http.post("/hunts/", { token: user.token, json: body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }
  const run = (user: TestUser, id: number) => app.http.post(`/hunts/${id}/run`, { token: user.token });
  const huntNotifications = async (user: TestUser, huntId: number) =>
    (await q("SELECT type, payload FROM notifications WHERE user_id = $1 AND type LIKE 'hunt.%' AND (payload->>'hunt_id')::int = $2 ORDER BY id", [user.id, huntId])).rows as {
      type: string;
      payload: any;
    }[];
  async function addDomain(value: string): Promise<string> {
    const res = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: VOLTA, type: "domain", value } });
    expect(res.status, res.text).toBe(201);
    return res.body.uuid;
  }

  beforeAll(async () => {
    app = await startTestApp("hunts", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, 3);
    outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
    for (const uuid of [VOLTA, METACOIN]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: feedEvent(uuid) });
      expect(res.status, res.text).toBe(201);
    }
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("runs a search hunt: at most 100 documents newest first, the full count, each hit with is_new; caches it and adds history", async () => {
    const hunt = await createHunt(analyst, { name: "metacoin domains", query: `event_uuid:${METACOIN} AND type:domain` });
    expect(hunt).toMatchObject({ hunt_type: "search", index_target: "attributes", status: "active", last_run_at: null, last_match_count: null, schedule: null, user_id: analyst.id });
    const res = await run(analyst, hunt.id);
    expect(res.status, res.text).toBe(200);
    const explore = await app.http.get(`/attributes/search?query=${encodeURIComponent(`event_uuid:${METACOIN} AND type:domain`)}`, { token: analyst.token });
    expect(explore.body.total).toBeGreaterThan(200);
    expect(res.body.total).toBe(explore.body.total);
    expect(res.body.hits).toHaveLength(100);
    expect(res.body.hits.every((h: any) => h.is_new === false && h.type === "domain" && h.event_uuid === METACOIN)).toBe(true);
    const times = res.body.hits.map((h: any) => Date.parse(h["@timestamp"]));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(res.body.hunt).toMatchObject({ id: hunt.id, last_match_count: res.body.total, last_run_status: "succeeded", last_run_error: null });
    expect(Date.parse(res.body.hunt.last_run_at)).toBeGreaterThan(Date.now() - 60_000);

    const cached = await app.http.get(`/hunts/${hunt.id}/results`, { token: analyst.token });
    expect(cached.status).toBe(200);
    expect(cached.body).toMatchObject({ hunt: { id: hunt.id }, total: res.body.total });
    expect(cached.body.hits).toEqual(res.body.hits);
    const history = await app.http.get(`/hunts/${hunt.id}/history`, { token: analyst.token });
    expect(history.body).toEqual([expect.objectContaining({ match_count: res.body.total, status: "succeeded", error: null, trigger: "manual", new_hit_count: 0 })]);
  });

  it("marks new hits and alerts the owner: first run with results, changed count, same count with new hits; nothing when unchanged", async () => {
    // Letters only: a digit before ".pro" would split the domain into two tokens for the analyser.
    const marker = `hunt${[...crypto.randomBytes(6)].map((b) => String.fromCharCode(97 + (b % 26))).join("")}`;
    const hunt = await createHunt(analyst, { name: "watch .pro", query: `value:*.${marker}.pro` });
    // Nothing yet: a run without results before anything was found is silent.
    expect((await run(analyst, hunt.id)).body).toMatchObject({ total: 0, hits: [] });
    expect(await huntNotifications(analyst, hunt.id)).toEqual([]);

    const first = [await addDomain(`a.${marker}.pro`), await addDomain(`b.${marker}.pro`)];
    await settled(app);
    const r1 = await run(analyst, hunt.id);
    expect(r1.body.total).toBe(2);
    // is_new compares with the previous result set, which had no hits.
    expect(r1.body.hits.map((h: any) => [h.uuid, h.is_new]).sort()).toEqual(first.map((u) => [u, true]).sort());
    let alerts = await huntNotifications(analyst, hunt.id);
    expect(alerts).toEqual([{ type: "hunt.result.first_run", payload: { hunt_id: hunt.id, hunt_name: "watch .pro", total: 2, previous_total: 0, new_hits: expect.arrayContaining(first), new_hit_count: 2 } }]);

    const r2 = await run(analyst, hunt.id);
    expect(r2.body.hits.every((h: any) => h.is_new === false)).toBe(true);
    expect(await huntNotifications(analyst, hunt.id)).toHaveLength(1);

    const third = await addDomain(`c.${marker}.pro`);
    await settled(app);
    const r3 = await run(analyst, hunt.id);
    expect(r3.body.total).toBe(3);
    expect(r3.body.hits.filter((h: any) => h.is_new).map((h: any) => h.uuid)).toEqual([third]);
    alerts = await huntNotifications(analyst, hunt.id);
    expect(alerts.at(-1)).toEqual({ type: "hunt.result.changed", payload: { hunt_id: hunt.id, hunt_name: "watch .pro", total: 3, previous_total: 2, new_hits: [third], new_hit_count: 1 } });

    // Same count, different hits: one goes (soft delete), another comes.
    expect((await app.http.delete(`/attributes/${first[0]}`, { token: admin.token })).status).toBe(204);
    const fourth = await addDomain(`d.${marker}.pro`);
    await settled(app);
    const r4 = await run(analyst, hunt.id);
    expect(r4.body.total).toBe(3);
    expect(r4.body.hits.map((h: any) => h.uuid).sort()).toEqual([first[1], third, fourth].sort());
    alerts = await huntNotifications(analyst, hunt.id);
    expect(alerts).toHaveLength(3);
    expect(alerts.at(-1)).toEqual({ type: "hunt.result.changed", payload: { hunt_id: hunt.id, hunt_name: "watch .pro", total: 3, previous_total: 3, new_hits: [fourth], new_hit_count: 1 } });

    const history = await app.http.get(`/hunts/${hunt.id}/history`, { token: analyst.token });
    expect(history.body.map((h: any) => [h.match_count, h.new_hit_count])).toEqual([[3, 1], [3, 1], [2, 0], [2, 2], [0, 0]]);
    const runAts = history.body.map((h: any) => Date.parse(h.run_at));
    expect(runAts).toEqual([...runAts].sort((a, b) => b - a));
    expect((await app.http.get(`/hunts/${hunt.id}/history?limit=2&skip=1`, { token: analyst.token })).body.map((h: any) => h.id)).toEqual(history.body.slice(1, 3).map((h: any) => h.id));

    // Clearing the history clears the cache; the next run with hits is a first run again.
    expect((await app.http.delete(`/hunts/${hunt.id}/history`, { token: analyst.token })).status).toBe(204);
    expect((await app.http.get(`/hunts/${hunt.id}/history`, { token: analyst.token })).body).toEqual([]);
    const gone = await app.http.get(`/hunts/${hunt.id}/results`, { token: analyst.token });
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/No results available yet/);
    expect((await app.http.get(`/hunts/${hunt.id}`, { token: analyst.token })).body).toMatchObject({ last_match_count: null, last_run_at: null });
    const r5 = await run(analyst, hunt.id);
    expect(r5.body.hits.every((h: any) => h.is_new === false)).toBe(true);
    expect((await huntNotifications(analyst, hunt.id)).at(-1)).toMatchObject({ type: "hunt.result.first_run", payload: { total: 3, previous_total: null, new_hit_count: 3 } });
  });

  it("searches events and correlations too, with the owner's access: other organisations' events stay hidden", async () => {
    const events = await createHunt(analyst, { name: "tlp clear events", query: 'tags.name:"tlp:clear"', index_target: "events" });
    const res = await run(analyst, events.id);
    expect(res.body.total).toBe(1);
    expect(res.body.hits[0]).toMatchObject({ uuid: VOLTA, info: "volta_stealer_20260629_iocs", is_new: false });

    const corr = await createHunt(analyst, { name: "correlations", query: "*", index_target: "correlations" });
    expect((await run(analyst, corr.id)).status).toBe(200);

    // Distribution 0 (organisation only): the outsider's hunt finds nothing of the admin's organisation.
    const hidden = await app.http.post("/events/", { token: admin.token, json: { info: `private ${crypto.randomUUID()}`, distribution: 0 } });
    expect(hidden.status, hidden.text).toBe(201);
    const marker = `private${crypto.randomBytes(3).toString("hex")}.org`;
    expect((await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: hidden.body.uuid, type: "domain", value: marker } })).status).toBe(201);
    await settled(app);
    const mine = await createHunt(analyst, { name: "private", query: `value:"${marker}"` });
    const theirs = await createHunt(outsider, { name: "private", query: `value:"${marker}"` });
    expect((await run(analyst, mine.id)).body.total).toBe(1);
    expect((await run(outsider, theirs.id)).body).toMatchObject({ total: 0, hits: [] });
  });

  it("keeps an Explore query with its time clause verbatim (save as hunt), and runs it", async () => {
    const query = '(type:domain AND value:*.pro)   AND @timestamp:[now-100y TO now]';
    const hunt = await createHunt(analyst, { name: "from explore", query, hunt_type: "opensearch" });
    expect(hunt).toMatchObject({ query, hunt_type: "search", index_target: "attributes" });
    expect((await app.http.get(`/hunts/${hunt.id}`, { token: analyst.token })).body.query).toBe(query);
    const res = await run(analyst, hunt.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBeGreaterThan(0);
  });

  it("has GraphQL twins that answer what REST answers", async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await app.http.post("/graphql", { token: analyst.token, json: { query, variables } });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const created = await gql(
      `mutation($input: CreateHuntInput!) { createHunt(input: $input) { id name query huntType indexTarget status lastMatchCount } }`,
      { input: { name: "gql hunt", query: `event_uuid:${VOLTA}`, huntType: "SEARCH", indexTarget: "ATTRIBUTES" } },
    );
    expect(created.errors).toBeUndefined();
    const id = created.data.createHunt.id;
    expect(created.data.createHunt).toMatchObject({ name: "gql hunt", huntType: "SEARCH", indexTarget: "ATTRIBUTES", status: "ACTIVE", lastMatchCount: null });
    const ran = await gql(`mutation($id: Int!) { runHunt(id: $id) { total hits { __typename } hunt { lastMatchCount } } }`, { id });
    const explore = await app.http.get(`/attributes/search?query=${encodeURIComponent(`event_uuid:${VOLTA}`)}`, { token: analyst.token });
    expect(ran.data.runHunt.total).toBe(explore.body.total);
    expect(ran.data.runHunt.hunt.lastMatchCount).toBe(explore.body.total);
    const rest = await app.http.get(`/hunts/${id}/results`, { token: analyst.token });
    const results = await gql(`query($id: Int!) { huntResults(id: $id) { total hits { __typename ... on HuntDocumentHit { isNew uuid document } } } hunt(id: $id) { lastMatchCount lastRunStatus } huntHistory(id: $id) { total items { matchCount status } } }`, { id });
    expect(results.data.huntResults.total).toBe(rest.body.total);
    expect(results.data.huntResults.hits.map((h: { document: unknown }) => h.document)).toEqual(rest.body.hits);
    expect(results.data.huntResults.hits.map((h: { __typename: string; isNew: boolean; uuid: string }) => [h.__typename, h.isNew, h.uuid])).toEqual(
      rest.body.hits.map((h: { is_new: boolean; uuid: string }) => ["HuntDocumentHit", h.is_new, h.uuid]),
    );
    expect(results.data.hunt).toEqual({ lastMatchCount: explore.body.total, lastRunStatus: "succeeded" });
    expect(results.data.huntHistory).toEqual({ total: 1, items: [{ matchCount: explore.body.total, status: "succeeded" }] });
    const listed = await gql(`{ hunts(filter: "gql") { total items { id } } }`);
    const restList = await app.http.get("/hunts/?filter=gql", { token: analyst.token });
    expect(listed.data.hunts).toEqual({ total: restList.body.total, items: restList.body.items.map((h: any) => ({ id: h.id })) });
    const updated = await gql(`mutation($id: Int!) { updateHunt(id: $id, input: { status: PAUSED, schedule: DAILY }) { status schedule nextRunAt } }`, { id });
    expect(updated.data.updateHunt).toMatchObject({ status: "PAUSED", schedule: "daily" });
    const denied = await app.http.post("/graphql", { token: outsider.token, json: { query: `query($id: Int!) { hunt(id: $id) { id } }`, variables: { id } } });
    expect(denied.body.errors[0].extensions).toMatchObject({ code: "not_found" });
    expect((await gql(`mutation($id: Int!) { clearHuntHistory(id: $id) }`, { id })).data.clearHuntHistory).toBe(true);
    expect((await gql(`mutation($id: Int!) { deleteHunt(id: $id) }`, { id })).data.deleteHunt).toBe(true);
    expect((await app.http.get(`/hunts/${id}`, { token: analyst.token })).status).toBe(404);
  });
});
