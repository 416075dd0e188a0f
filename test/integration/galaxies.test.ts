import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPath } from "../support/shared-data.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { isSafeGalaxyName } from "../../src/modules/galaxies/galaxy-source.ts";
import { splitAttackPatternQuery } from "../../src/modules/galaxies/galaxies.service.ts";

/** The real misp-galaxy files, read in place: never copied into the project. */
const GALAXY_DATA = sharedPath("misp-galaxy");
const ATTACK_CLUSTERS = 1266;
const T1059 = 'misp-galaxy:mitre-attack-pattern="Command and Scripting Interpreter - T1059"';
const POWERSHELL_UUID = "970a3432-3237-47ad-bcca-7d8cbb217736";

let app: TestApp;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  app = await startTestApp("galaxies", { GALAXY_SOURCE: GALAXY_DATA });
  admin = await loginAdmin(app);
  user = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = <T = any>(a: TestApp, text: string, params: unknown[] = []) => a.booted.ctx.db.pool.query<T & object>(text, params).then((r) => r.rows);
const count = async (a: TestApp, text: string, params: unknown[] = []) => (await sql<{ n: number }>(a, text, params))[0].n;
const audits = (a: TestApp, action: string) => sql(a, "SELECT * FROM audit_logs WHERE action = $1 ORDER BY id", [action]);
/** Every row version of the galaxy tables: xmin changes whenever PostgreSQL writes a row. */
const rowVersions = (a: TestApp) =>
  sql(a, `SELECT 'g' || id AS k, xmin::text AS v, updated_at FROM galaxies UNION ALL SELECT 'c' || id, xmin::text, NULL FROM galaxy_clusters ORDER BY 1`);
const galaxyTags = (a: TestApp) =>
  sql<{ id: number; name: string; colour: string; exportable: boolean; hide_tag: boolean; is_galaxy: boolean }>(
    a,
    `SELECT id, name, colour, exportable, hide_tag, is_galaxy FROM tags WHERE name LIKE 'misp-galaxy:mitre-attack-pattern=%' ORDER BY id`,
  );
const hasLoc = (body: any, ...loc: (string | number)[]) =>
  Array.isArray(body?.detail) && body.detail.some((d: any) => JSON.stringify(d.loc.slice(0, loc.length)) === JSON.stringify(loc));

let galaxyId: number;
let galaxyUuid: string;
let firstTook: number;

describe("import of the real ATT&CK galaxy", () => {
  it("imports the galaxy and its 1266 clusters, with MISP tag names and upper-cased external ids", async () => {
    const started = performance.now();
    const res = await app.http.post("/galaxies/update", { token: admin.token });
    const wall = Math.round(performance.now() - started);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ galaxies: 1, clusters_created: ATTACK_CLUSTERS, clusters_updated: 0, clusters_unchanged: 0, took_ms: expect.any(Number) });
    firstTook = res.body.took_ms;
    console.log(`galaxy import, first run: took_ms=${res.body.took_ms} (HTTP round trip ${wall} ms)`);
    // Issue 4: "seconds, not minutes". bench/galaxies.ts measured a median of 1.2 s (0.9-1.5 s) on
    // 2 busy cores (load average 5-6). The bound is far above that so it cannot flake on a loaded
    // machine, and below this test's 30 s timeout so a slow import fails here with its figure.
    expect(wall, "first import of the ATT&CK galaxy, ms").toBeLessThan(20_000);

    const [g] = await sql(app, "SELECT * FROM galaxies WHERE type = 'mitre-attack-pattern'");
    expect(g).toMatchObject({ uuid: "c4e851fa-775f-11e7-8163-b774922098cd", name: "Attack Pattern", namespace: "mitre-attack", version: "15", enabled: false });
    galaxyId = g.id;
    galaxyUuid = g.uuid;
    expect(await count(app, "SELECT count(*)::int AS n FROM galaxy_clusters WHERE galaxy_id = $1", [galaxyId])).toBe(ATTACK_CLUSTERS);
    const [c] = await sql(app, "SELECT * FROM galaxy_clusters WHERE tag_name = $1", [T1059]);
    expect(c).toMatchObject({
      value: "Command and Scripting Interpreter - T1059",
      type: "mitre-attack-pattern",
      external_ids: ["T1059"],
      collection_uuid: "dcb864dc-775f-11e7-9fbb-1f41b4996683",
      authors: ["MITRE"],
      source: "https://github.com/mitre/cti",
      version: "36",
    });
    expect(c.meta.external_id).toBe("T1059");
    expect(c.description.length).toBeGreaterThan(100);
    // Every cluster got exactly its tag name and at least one technique code.
    expect(await count(app, `SELECT count(*)::int AS n FROM galaxy_clusters WHERE tag_name <> 'misp-galaxy:mitre-attack-pattern="' || value || '"'`)).toBe(0);
    expect(await count(app, "SELECT count(*)::int AS n FROM galaxy_clusters WHERE cardinality(external_ids) = 0")).toBe(0);
    const related = await sql(app, "SELECT related FROM galaxy_clusters WHERE value = 'PowerShell - T1059.001'");
    expect(related[0].related).toEqual(expect.arrayContaining([expect.objectContaining({ type: "subtechnique-of" })]));

    const [audit] = await audits(app, "galaxy.updated");
    expect(audit).toMatchObject({ actor_user_id: admin.id, resource_type: "galaxy" });
    expect(audit.metadata).toMatchObject({ source: "directory", galaxies: 1, galaxies_created: 1, clusters_created: ATTACK_CLUSTERS, clusters_updated: 0 });
  });

  it("is idempotent: a second run with the same files writes no row and is not slower", async () => {
    const before = await rowVersions(app);
    const res = await app.http.post("/galaxies/update", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ galaxies: 1, clusters_created: 0, clusters_updated: 0, clusters_unchanged: ATTACK_CLUSTERS, took_ms: expect.any(Number) });
    console.log(`galaxy import, second (idempotent) run: took_ms=${res.body.took_ms}`);
    expect(await rowVersions(app)).toEqual(before);
    expect(res.body.took_ms).toBeLessThan(Math.max(2 * firstTook, 1500));
    const runs = await audits(app, "galaxy.updated");
    expect(runs).toHaveLength(2);
    expect(runs[1].metadata).toMatchObject({ clusters_created: 0, clusters_updated: 0, clusters_unchanged: ATTACK_CLUSTERS, galaxies_updated: 0 });
  });

  it("updates only the clusters whose content changed", async () => {
    await sql(app, "UPDATE galaxy_clusters SET description = 'tampered' WHERE value = 'Python - T1059.006'");
    await sql(app, "UPDATE galaxy_clusters SET version = '35' WHERE value = 'Lua - T1059.011'");
    const before = await sql(app, "SELECT updated_at FROM galaxies WHERE id = $1", [galaxyId]);
    const res = await app.http.post("/galaxies/update", { token: admin.token });
    expect(res.body).toMatchObject({ clusters_created: 0, clusters_updated: 2, clusters_unchanged: ATTACK_CLUSTERS - 2 });
    const [python] = await sql(app, "SELECT description FROM galaxy_clusters WHERE value = 'Python - T1059.006'");
    expect(python.description).not.toBe("tampered");
    const after = await sql(app, "SELECT updated_at FROM galaxies WHERE id = $1", [galaxyId]);
    expect(after[0].updated_at.getTime()).toBeGreaterThan(before[0].updated_at.getTime());
  });

  it("needs galaxies:update: role 3 (user) gets 403 and nothing runs", async () => {
    const runs = (await audits(app, "galaxy.updated")).length;
    const res = await app.http.post("/galaxies/update", { token: user.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
    expect(await audits(app, "galaxy.updated")).toHaveLength(runs);
  });
});

describe("browsing", () => {
  it("lists galaxies in the P2 envelope with query.filter", async () => {
    const res = await app.http.get("/galaxies/", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, page: 1, size: 20, pages: 1, query: { filter: null } });
    expect(res.body.items[0]).toMatchObject({ id: galaxyId, uuid: galaxyUuid, type: "mitre-attack-pattern", enabled: false, local_only: false, default: true, clusters: [] });
    expect(Object.keys(res.body.items[0]).sort()).toEqual(
      ["clusters", "created", "default", "description", "enabled", "icon", "id", "kill_chain_order", "local_only", "modified", "name", "namespace", "type", "uuid", "version"],
    );
    expect((await app.http.get("/galaxies/?filter=ATTACK%20pat", { token: user.token })).body).toMatchObject({ total: 1, query: { filter: "ATTACK pat" } });
    expect((await app.http.get("/galaxies/?filter=mitre-attack", { token: user.token })).body.total).toBe(1);
    expect((await app.http.get("/galaxies/?filter=%25", { token: user.token })).body.total).toBe(0);
    expect((await app.http.get("/galaxies/?enabled=true", { token: user.token })).body.total).toBe(0);
    expect((await app.http.get("/galaxies/?enabled=false&page=2", { token: user.token })).body).toMatchObject({ total: 1, page: 2, items: [] });
  });

  it("gets a galaxy with all its clusters by id or uuid; unknown ids are 404, malformed ones 422", async () => {
    for (const key of [galaxyId, galaxyUuid, galaxyUuid.toUpperCase()]) {
      const res = await app.http.get(`/galaxies/${key}`, { token: user.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.clusters).toHaveLength(ATTACK_CLUSTERS);
    }
    const one = (await app.http.get(`/galaxies/${galaxyId}`, { token: user.token })).body.clusters.find((c: any) => c.tag_name === T1059);
    expect(one).toMatchObject({ galaxy_id: galaxyId, external_ids: ["T1059"], type: "mitre-attack-pattern", authors: ["MITRE"] });
    expect((await app.http.get("/galaxies/999999", { token: user.token })).status).toBe(404);
    expect((await app.http.get(`/galaxies/${crypto.randomUUID()}`, { token: user.token })).body).toEqual({ detail: "Galaxy not found", code: "not_found" });
    expect((await app.http.get("/galaxies/not-a-galaxy", { token: user.token })).status).toBe(422);
    expect((await app.http.get("/galaxies/..%2F..%2Fetc%2Fpasswd", { token: user.token })).status).toBe(422);
  });

  it("finds T1059 and T1059.001 through the clusters filter (value, tag name or external id, any case)", async () => {
    const all = await app.http.get(`/galaxies/${galaxyId}/clusters?filter=t1059&size=100`, { token: user.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 14, page: 1, size: 100, pages: 1, query: { filter: "t1059" } });
    expect(all.body.items.map((c: any) => c.tag_name)).toContain(T1059);
    const sub = await app.http.get(`/galaxies/${galaxyUuid}/clusters?filter=t1059.001`, { token: user.token });
    expect(sub.body.total).toBe(1);
    expect(sub.body.items[0]).toMatchObject({ uuid: POWERSHELL_UUID, value: "PowerShell - T1059.001", external_ids: ["T1059.001"] });
    const byTag = await app.http.get(`/galaxies/${galaxyId}/clusters?filter=${encodeURIComponent('pattern="powershell - t1059.001"')}`, { token: user.token });
    expect(byTag.body.total).toBe(1);
    const paged = await app.http.get(`/galaxies/${galaxyId}/clusters?size=1000&page=2`, { token: user.token });
    expect(paged.body).toMatchObject({ total: ATTACK_CLUSTERS, page: 2, size: 1000, pages: 2 });
    expect(paged.body.items).toHaveLength(ATTACK_CLUSTERS - 1000);
    expect((await app.http.get(`/galaxies/${galaxyId}/clusters?filter=%5F%25`, { token: user.token })).body.total).toBe(0);
    expect((await app.http.get("/galaxies/999999/clusters", { token: user.token })).status).toBe(404);
  });

  it.each([
    ["size=0"],
    ["size=1001"],
    ["page=0"],
    ["page=-1"],
    ["size=abc"],
    ["unknown=1"],
    [`filter=${"x".repeat(256)}`],
  ])("refuses %s with 422 on the list and the clusters routes", async (q) => {
    for (const route of ["/galaxies/", `/galaxies/${galaxyId}/clusters`]) {
      const res = await app.http.get(`${route}?${q}`, { token: user.token });
      expect(res.status, `${route}?${q}`).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(hasLoc(res.body, "query")).toBe(true);
    }
  });

  it("lists ATT&CK patterns like the peer: at most 1000, ordered by external id, filtered by value or code", async () => {
    const t1059 = await app.http.get("/galaxies/mitre-attack-patterns?filter=T1059", { token: user.token });
    expect(t1059.status).toBe(200);
    expect(t1059.body).toHaveLength(14);
    expect(t1059.body[0]).toEqual({ uuid: expect.any(String), value: "Command and Scripting Interpreter - T1059", description: expect.any(String), external_id: "T1059" });
    expect(t1059.body[1]).toMatchObject({ uuid: POWERSHELL_UUID, external_id: "T1059.001" });
    const ids = t1059.body.map((p: any) => p.external_id);
    expect(ids).toEqual([...ids].sort());
    const all = await app.http.get("/galaxies/mitre-attack-patterns", { token: user.token });
    expect(all.body).toHaveLength(1000);
    expect((await app.http.get("/galaxies/mitre-attack-patterns?filter=powershell", { token: user.token })).body.map((p: any) => p.external_id)).toContain("T1059.001");
    expect((await app.http.get("/galaxies/mitre-attack-patterns?page=1", { token: user.token })).status).toBe(422);
  });
});

describe("enabling and disabling", () => {
  it("requires enabled in the body (422, where the peer gives 500) and an integer id", async () => {
    const missing = await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { local_only: true } });
    expect(missing.status).toBe(422);
    expect(hasLoc(missing.body, "body", "enabled")).toBe(true);
    expect((await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: "yes" } })).status).toBe(422);
    expect((await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: null })).status).toBe(422);
    expect((await app.http.patch(`/galaxies/${galaxyUuid}`, { token: admin.token, json: { enabled: true } })).status).toBe(422);
    expect((await app.http.patch("/galaxies/999999", { token: admin.token, json: { enabled: true } })).status).toBe(404);
    expect((await app.http.patch(`/galaxies/${galaxyId}`, { token: user.token, json: { enabled: true } })).status).toBe(403);
    expect(await galaxyTags(app)).toHaveLength(0);
    expect((await sql(app, "SELECT enabled, local_only FROM galaxies WHERE id = $1", [galaxyId]))[0]).toEqual({ enabled: false, local_only: false });
  });

  it("does not resolve techniques while the galaxy is imported but disabled", async () => {
    // The helper still checks its caller: anonymous is refused.
    await expect(app.booted.services.galaxies.resolveClusters(null, ["T1059"])).rejects.toMatchObject({ status: 401 });
    const p = await principalOf(admin);
    const res = await app.booted.services.galaxies.resolveClusters(p, ["T1059", "t1059.001"]);
    expect(res).toEqual({ clusters: [], unresolved: ["T1059", "t1059.001"], galaxy: "disabled" });
  });

  it("enabling creates one tag per cluster, once", async () => {
    const res = await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: galaxyId, enabled: true, local_only: false, default: true });
    const tags = await galaxyTags(app);
    expect(tags).toHaveLength(ATTACK_CLUSTERS);
    expect(tags.every((t) => t.colour === "#BBBBBB" && t.is_galaxy && t.exportable && !t.hide_tag)).toBe(true);
    expect(tags.map((t) => t.name)).toContain(T1059);
    const [audit] = await audits(app, "galaxy.enabled");
    expect(audit).toMatchObject({ resource_type: "galaxy", resource_id: galaxyId });
    expect(audit.metadata).toMatchObject({ tags_created: ATTACK_CLUSTERS, tags_unhidden: 0 });

    const again = await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: true } });
    expect(again.status).toBe(200);
    expect(await galaxyTags(app)).toEqual(tags);
    expect(await audits(app, "galaxy.enabled")).toHaveLength(1);
    expect((await app.http.get("/galaxies/?enabled=true", { token: user.token })).body.total).toBe(1);
  });

  it("resolves codes (any case), cluster uuids and full tag names, and reports what it could not resolve", async () => {
    const p = await principalOf(user);
    const python = (await sql(app, "SELECT uuid FROM galaxy_clusters WHERE value = 'Python - T1059.006'"))[0].uuid;
    const shell = 'misp-galaxy:mitre-attack-pattern="Unix Shell - T1059.004"';
    const res = await app.booted.services.galaxies.resolveClusters(p, [" T1059 ", "t1059.001", python.toUpperCase(), shell, "T9999", "nonsense", crypto.randomUUID(), 'misp-galaxy:mitre-attack-pattern="Nope"']);
    expect(res.galaxy).toBe("ready");
    expect(res.clusters.map((c) => c.value).sort()).toEqual(["Command and Scripting Interpreter - T1059", "PowerShell - T1059.001", "Python - T1059.006", "Unix Shell - T1059.004"]);
    expect(res.clusters.find((c) => c.value.startsWith("PowerShell"))).toMatchObject({ uuid: POWERSHELL_UUID, tagName: 'misp-galaxy:mitre-attack-pattern="PowerShell - T1059.001"', externalIds: ["T1059.001"] });
    expect(res.unresolved).toEqual(["T9999", "nonsense", expect.any(String), 'misp-galaxy:mitre-attack-pattern="Nope"']);
    // A technique does not pull in its sub-techniques.
    expect((await app.booted.services.galaxies.resolveClusters(p, ["T1059"])).clusters).toHaveLength(1);
  });

  it("MISP tags/search adds a cluster tag's GalaxyCluster and Galaxy, for a key that may read galaxies, in any organisation", async () => {
    const key = async (u: TestUser, scopes: string[]) => {
      const res = await app.http.post("/api-keys/", { token: u.token, json: { name: `tags-search-${crypto.randomUUID()}`, scopes } });
      expect(res.status, res.text).toBe(201);
      return res.body.token as string;
    };
    const search = (k: string, json: unknown) => app.http.request("POST", "/misp/tags/search", { authorization: k, json, headers: { accept: "application/json" } });
    const withGalaxies = await key(user, ["tags:read", "galaxies:read"]);
    const exact = await search(withGalaxies, { tagname: T1059, strict_tagname: true });
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body).toHaveLength(1);
    const [hit] = exact.body;
    expect(hit.Tag.name).toBe(T1059);
    expect(hit.GalaxyCluster).toMatchObject({
      value: "Command and Scripting Interpreter - T1059", tag_name: T1059, type: "mitre-attack-pattern", galaxy_id: String(galaxyId), tag_id: hit.Tag.id, default: true,
      meta: expect.objectContaining({ external_id: ["T1059"] }),
      Galaxy: { id: String(galaxyId), uuid: galaxyUuid, type: "mitre-attack-pattern", enabled: true },
    });
    // A LIKE pattern: the technique and its sub-techniques, each tag with its own cluster.
    const like = await search(withGalaxies, { Tag: { tag: 'misp-galaxy:mitre-attack-pattern="%- t1059%' } });
    expect(like.status, like.text).toBe(200);
    expect(like.body.map((h: any) => h.GalaxyCluster.value).sort()).toContain("PowerShell - T1059.001");
    expect(like.body.length).toBeGreaterThan(5);
    expect(like.body.every((h: any) => h.GalaxyCluster.tag_name === h.Tag.name && h.GalaxyCluster.tag_id === h.Tag.id)).toBe(true);
    // A tag named like a cluster that no galaxy holds, and any other tag, have none.
    const lookalike = 'misp-galaxy:threat-actor="No such actor"';
    expect((await app.http.post("/tags/", { token: admin.token, json: { name: lookalike } })).status).toBe(201);
    const none = await search(withGalaxies, { tagname: [lookalike, "tlp:%"] });
    expect(none.status, none.text).toBe(200);
    expect(none.body.map((h: any) => h.Tag.name)).toContain(lookalike);
    expect(none.body.some((h: any) => "GalaxyCluster" in h)).toBe(false);
    // Without galaxies:read the tags come without their cluster, as taxonomies without taxonomies:read.
    const tagsOnly = await search(await key(user, ["tags:read"]), { tagname: T1059, strict_tagname: true });
    expect(tagsOnly.status).toBe(200);
    expect(tagsOnly.body).toEqual([expect.objectContaining({ Tag: expect.objectContaining({ name: T1059 }) })]);
    expect(tagsOnly.body[0]).not.toHaveProperty("GalaxyCluster");
    // Galaxies are the instance's knowledge: another organisation's user reads the same cluster.
    const stranger = await createUser(app, admin, 3, await createOrganisation(app, admin));
    const elsewhere = await search(await key(stranger, ["tags:read", "galaxies:read"]), { tagname: T1059, strict_tagname: true });
    expect(elsewhere.body[0].GalaxyCluster).toEqual(hit.GalaxyCluster);
    // Hostile input: MISP's error body, never a 500.
    for (const json of [{ tagname: { x: 1 } }, { tagname: [`misp-galaxy:${"a".repeat(300)}`] }, { tagname: Array.from({ length: 101 }, (_, i) => `misp-galaxy:x="${i}"`) }, {}]) {
      const res = await search(withGalaxies, json);
      expect([400, 403, 405], res.text).toContain(res.status);
      expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: expect.stringMatching(/tags\/search$/) });
    }
  });

  it("MISP tags/search finds a cluster's tag by the cluster's value, case-insensitive and exact (a % there is no wildcard), only with galaxies:read", async () => {
    const key = async (scopes: string[]) => {
      const res = await app.http.post("/api-keys/", { token: user.token, json: { name: `tags-value-${crypto.randomUUID()}`, scopes } });
      expect(res.status, res.text).toBe(201);
      return res.body.token as string;
    };
    const search = async (k: string, json: unknown) => {
      const res = await app.http.request("POST", "/misp/tags/search", { authorization: k, json, headers: { accept: "application/json" } });
      expect(res.status, res.text).toBe(200);
      return res.body as any[];
    };
    const withGalaxies = await key(["tags:read", "galaxies:read"]);
    const byValue = await search(withGalaxies, { tag: "command and scripting INTERPRETER - t1059" });
    expect(byValue.map((h) => h.Tag.name)).toEqual([T1059]);
    expect(byValue[0].GalaxyCluster).toMatchObject({ value: "Command and Scripting Interpreter - T1059", tag_name: T1059, tag_id: byValue[0].Tag.id });
    // A list mixes both ways: a value and a tag name pattern, each tag once.
    const mixed = await search(withGalaxies, { tagname: ["PowerShell - T1059.001", 'misp-galaxy:mitre-attack-pattern="PowerShell - T1059.00_"', "tlp:%"] });
    expect(mixed.filter((h) => h.GalaxyCluster?.uuid === POWERSHELL_UUID)).toHaveLength(1);
    // MISP compares the value with =, so a % in it is literal: a prefix of a value finds nothing (no tag name starts so either).
    expect(await search(withGalaxies, { tag: "Command and Scripting%" })).toEqual([]);
    expect(await search(withGalaxies, { tag: "No such technique - T9999" })).toEqual([]);
    // strict_tagname asks tag names only, as MISP.
    expect(await search(withGalaxies, { tag: "Command and Scripting Interpreter - T1059", strict_tagname: true })).toEqual([]);
    // Without galaxies:read a cluster's value is no way to its tag.
    expect(await search(await key(["tags:read"]), { tag: "Command and Scripting Interpreter - T1059" })).toEqual([]);
  });

  it("splits a hunt query on commas and lines, but not inside a quoted tag name", () => {
    const tag = 'misp-galaxy:mitre-attack-pattern="Analyze social and business relationships, interests, and affiliations - T1295"';
    expect(splitAttackPatternQuery(`T1059, t1059.001\n${tag}\r\n\n,T1059`)).toEqual(["T1059", "t1059.001", tag]);
  });

  it("disabling hides the tags and stops resolution; enabling again shows them without creating any", async () => {
    const res = await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: false } });
    expect(res.status).toBe(200);
    expect(res.body.enabled).toBe(false);
    const hidden = await galaxyTags(app);
    expect(hidden).toHaveLength(ATTACK_CLUSTERS);
    expect(hidden.every((t) => t.hide_tag)).toBe(true);
    expect((await audits(app, "galaxy.disabled"))[0].metadata).toMatchObject({ tags_hidden: ATTACK_CLUSTERS });
    const p = await principalOf(user);
    expect(await app.booted.services.galaxies.resolveClusters(p, ["T1059"])).toEqual({ clusters: [], unresolved: ["T1059"], galaxy: "disabled" });

    await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: true, local_only: true } });
    const shown = await galaxyTags(app);
    expect(shown.map((t) => t.id)).toEqual(hidden.map((t) => t.id));
    expect(shown.every((t) => !t.hide_tag)).toBe(true);
    expect((await audits(app, "galaxy.enabled"))[1].metadata).toMatchObject({ tags_created: 0, tags_unhidden: ATTACK_CLUSTERS, local_only: true });
    expect((await app.booted.services.galaxies.resolveClusters(p, ["T1059"])).clusters).toHaveLength(1);
  });

  it("an import keeps enabled, local_only and the tags as they are", async () => {
    const tags = await galaxyTags(app);
    const res = await app.http.post("/galaxies/update", { token: admin.token });
    expect(res.body).toMatchObject({ clusters_created: 0, clusters_updated: 0 });
    expect((await sql(app, "SELECT enabled, local_only FROM galaxies WHERE id = $1", [galaxyId]))[0]).toEqual({ enabled: true, local_only: true });
    expect(await galaxyTags(app)).toEqual(tags);
  });
});

describe("GraphQL twins", () => {
  it("answers galaxies, galaxy, galaxyClusters and mitreAttackPatterns from the same service", async () => {
    const res = await app.http.graphql(
      `query($uuid: String) {
         galaxies(filter: "attack") { total pages filter items { id type enabled } }
         galaxy(uuid: $uuid) { id name clusters(filter: "T1059.001") { total items { uuid tagName externalIds } } }
         galaxyClusters(galaxyUuid: $uuid, size: 5) { total size pages }
         mitreAttackPatterns(filter: "T1059.00") { externalId }
       }`,
      { uuid: galaxyUuid },
      user.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.galaxies).toMatchObject({ total: 1, pages: 1, filter: "attack", items: [{ id: galaxyId, type: "mitre-attack-pattern", enabled: true }] });
    expect(res.body.data.galaxy.clusters).toEqual({ total: 1, items: [{ uuid: POWERSHELL_UUID, tagName: 'misp-galaxy:mitre-attack-pattern="PowerShell - T1059.001"', externalIds: ["T1059.001"] }] });
    expect(res.body.data.galaxyClusters).toEqual({ total: ATTACK_CLUSTERS, size: 5, pages: Math.ceil(ATTACK_CLUSTERS / 5) });
    expect(res.body.data.mitreAttackPatterns.map((p: any) => p.externalId)).toEqual(["T1059.001", "T1059.002", "T1059.003", "T1059.004", "T1059.005", "T1059.006", "T1059.007", "T1059.008", "T1059.009"]);
  });

  it("checks paging bounds and scopes the same way", async () => {
    const bad = await app.http.graphql(`{ galaxies(size: 1001) { total } }`, {}, user.token);
    expect(bad.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    const denied = await app.http.graphql(`mutation { updateGalaxies { galaxies } }`, {}, user.token);
    expect(denied.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    const off = await app.http.graphql(`mutation($id: Int!) { setGalaxyEnabled(id: $id, enabled: false) { enabled } }`, { id: galaxyId }, admin.token);
    expect(off.body.data.setGalaxyEnabled).toEqual({ enabled: false });
    const update = await app.http.graphql(`mutation { updateGalaxies { galaxies clustersCreated clustersUpdated clustersUnchanged tookMs } }`, {}, admin.token);
    expect(update.body.data.updateGalaxies).toMatchObject({ galaxies: 1, clustersCreated: 0, clustersUpdated: 0, clustersUnchanged: ATTACK_CLUSTERS });
  });
});

/** The principal the service sees for this user's token, as the REST shim builds it. */
async function principalOf(u: TestUser) {
  const p = await app.booted.services.authenticator.authenticate([`Bearer ${u.token}`], { ip: null, userAgent: null });
  if (!p) throw new Error("no principal");
  return p;
}

// ---------------------------------------------------------------------------------------------
// Hostile and broken sources: a scratch directory the tests rewrite between runs.

const uuid = () => crypto.randomUUID();

function galaxyFile(type: string, extra: Record<string, unknown> = {}) {
  return { uuid: uuid(), name: `Galaxy ${type}`, type, description: "test", version: 1, icon: "x", namespace: "test", ...extra };
}

function clusterFile(type: string, values: Record<string, unknown>[]) {
  return { uuid: uuid(), type, name: type, authors: ["tests"], source: "tests", version: 1, description: "", values };
}

const cluster = (value: string, externalId?: string | (string | number)[]) => ({ uuid: uuid(), value, description: "", meta: externalId ? { external_id: externalId } : {} });

describe("hostile sources", () => {
  let scratch: string;
  let source: string;
  let outside: string;
  let hostile: TestApp;
  let hostileAdmin: TestUser;
  const write = (rel: string, content: unknown) => {
    fs.mkdirSync(path.dirname(path.join(source, rel)), { recursive: true });
    fs.writeFileSync(path.join(source, rel), typeof content === "string" ? content : JSON.stringify(content));
  };
  const update = () => hostile.http.post("/galaxies/update", { token: hostileAdmin.token });
  const snapshot = () => sql(hostile, "SELECT g.uuid, g.name, c.uuid AS c, c.value, c.external_ids FROM galaxies g LEFT JOIN galaxy_clusters c ON c.galaxy_id = g.id ORDER BY 1, 3");
  let alpha: { galaxy: ReturnType<typeof galaxyFile>; clusters: ReturnType<typeof clusterFile> };

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "wb-galaxies-"));
    source = path.join(scratch, "source");
    outside = path.join(scratch, "outside");
    fs.mkdirSync(outside);
    hostile = await startTestApp("galaxies-hostile", { GALAXY_SOURCE: source });
    hostileAdmin = await loginAdmin(hostile);
  });
  afterAll(async () => {
    await hostile?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("answers 503 with a JSON error when GALAXY_SOURCE is missing or has no galaxies/ folder", async () => {
    const missing = await update();
    expect(missing.status).toBe(503);
    expect(missing.headers.get("content-type")).toContain("application/json");
    expect(missing.body).toEqual({ detail: "GALAXY_SOURCE is not a readable directory", code: "service_unavailable" });
    fs.mkdirSync(source);
    const empty = await update();
    expect(empty.status).toBe(503);
    expect(empty.body.detail).toContain("galaxies/");
    expect(await audits(hostile, "galaxy.updated")).toHaveLength(0);
  });

  it("imports a small valid source; external ids may be lists", async () => {
    alpha = { galaxy: galaxyFile("alpha"), clusters: clusterFile("alpha", [cluster("One", "a-1"), cluster("Two, with a comma", ["a-2", " b-2 ", 7])]) };
    write("galaxies/alpha.json", alpha.galaxy);
    write("clusters/alpha.json", alpha.clusters);
    const res = await update();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ galaxies: 1, clusters_created: 2 });
    const rows = await sql(hostile, "SELECT tag_name, external_ids FROM galaxy_clusters ORDER BY value");
    expect(rows).toEqual([
      { tag_name: 'misp-galaxy:alpha="One"', external_ids: ["A-1"] },
      { tag_name: 'misp-galaxy:alpha="Two, with a comma"', external_ids: ["A-2", "B-2"] },
    ]);
  });

  it("refuses a cluster file with garbage JSON with 400 and writes nothing, not even the valid galaxies", async () => {
    const before = await snapshot();
    write("clusters/alpha.json", { ...alpha.clusters, values: [cluster("Changed", "a-9"), ...alpha.clusters.values] });
    write("galaxies/beta.json", galaxyFile("beta"));
    write("clusters/beta.json", '{"type": "beta", "values": [ {"uuid": ');
    write("galaxies/gamma.json", galaxyFile("gamma"));
    write("clusters/gamma.json", clusterFile("gamma", [cluster("G")]));
    const res = await update();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "clusters/beta.json is not valid JSON", code: "bad_request" });
    expect(await snapshot()).toEqual(before);
    fs.rmSync(path.join(source, "galaxies/beta.json"));
    fs.rmSync(path.join(source, "galaxies/gamma.json"));
    write("clusters/alpha.json", alpha.clusters);
  });

  it.each([
    ["a cluster file that is not a galaxy file", () => write("clusters/alpha.json", { values: "nope" }), "clusters/alpha.json is not a valid galaxy file"],
    ["a missing clusters file", () => write("galaxies/delta.json", galaxyFile("delta")), "clusters/delta.json is missing"],
    ["a NUL character", () => write("clusters/alpha.json", clusterFile("alpha", [cluster("bad\u0000value")])), "NUL"],
    ["a cluster listed twice", () => {
      const c = cluster("Twice");
      write("clusters/alpha.json", clusterFile("alpha", [c, c]));
    }, "twice"],
    ["a galaxy type that would break tag names", () => {
      write("galaxies/alpha.json", { ...alpha.galaxy, type: 'x"="y' });
      write("clusters/alpha.json", { ...alpha.clusters, type: 'x"="y' });
    }, "galaxies/alpha.json is not a valid galaxy file"],
    ["a cluster value too long for a tag", () => write("clusters/alpha.json", clusterFile("alpha", [cluster("é".repeat(1500))])), "2000 bytes"],
    ["a type that differs from its galaxy", () => write("clusters/alpha.json", { ...alpha.clusters, type: "other" }), "has type"],
    ["two galaxies with one uuid", () => {
      write("galaxies/epsilon.json", { ...galaxyFile("epsilon"), uuid: alpha.galaxy.uuid });
      write("clusters/epsilon.json", clusterFile("epsilon", []));
    }, "same uuid"],
    ["an unsafe file name", () => {
      write("galaxies/.hidden.json", galaxyFile("hidden"));
      write("clusters/.hidden.json", clusterFile("hidden", []));
    }, "unsupported file name"],
  ])("refuses %s with 400 and writes nothing", async (_label, prepare, message) => {
    const before = await snapshot();
    const saved = new Map(["galaxies", "clusters"].map((d) => [d, fs.readdirSync(path.join(source, d))]));
    prepare();
    const res = await update();
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe("bad_request");
    expect(res.body.detail).toContain(message);
    expect(await snapshot()).toEqual(before);
    // Restore the valid source.
    for (const [dir, names] of saved) {
      for (const f of fs.readdirSync(path.join(source, dir))) if (!names.includes(f)) fs.rmSync(path.join(source, dir, f));
    }
    write("galaxies/alpha.json", alpha.galaxy);
    write("clusters/alpha.json", alpha.clusters);
    expect((await update()).status).toBe(200);
  });

  it("never reads outside the directory: symbolic links that escape it are refused", async () => {
    fs.copyFileSync(path.join(GALAXY_DATA, "galaxies/mitre-attack-pattern.json"), path.join(outside, "g.json"));
    fs.writeFileSync(path.join(outside, "c.json"), JSON.stringify(clusterFile("mitre-attack-pattern", [cluster("Leaked - T0001", "T0001")])));
    fs.symlinkSync(path.join(outside, "g.json"), path.join(source, "galaxies/mitre-attack-pattern.json"));
    fs.symlinkSync(path.join(outside, "c.json"), path.join(source, "clusters/mitre-attack-pattern.json"));
    const before = await snapshot();
    const res = await update();
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("galaxies/mitre-attack-pattern.json resolves outside GALAXY_SOURCE");
    fs.rmSync(path.join(source, "galaxies/mitre-attack-pattern.json"));
    fs.copyFileSync(path.join(outside, "g.json"), path.join(source, "galaxies/mitre-attack-pattern.json"));
    const viaCluster = await update();
    expect(viaCluster.status).toBe(400);
    expect(viaCluster.body.detail).toBe("clusters/mitre-attack-pattern.json resolves outside GALAXY_SOURCE");
    expect(await snapshot()).toEqual(before);
    fs.rmSync(path.join(source, "galaxies/mitre-attack-pattern.json"));
    fs.rmSync(path.join(source, "clusters/mitre-attack-pattern.json"));
  });

  it("accepts only plain galaxy names", () => {
    for (const bad of ["../etc/passwd", "..", "a/b", "a\\b", "", ".hidden", "a..b", "x%2F..", "a b", "é"]) expect(isSafeGalaxyName(bad), bad).toBe(false);
    for (const ok of ["mitre-attack-pattern", "tidal_groups", "360net", "v2.1"]) expect(isSafeGalaxyName(ok), ok).toBe(true);
  });
});

/**
 * MISP's tags/search also finds a cluster by a synonym. The ATT&CK galaxy of the shared data has none
 * (and it is the only galaxy there), so these clusters are written as misp-galaxy's threat-actor ones are.
 */
describe("MISP tags/search by synonym", () => {
  let scratch: string;
  let synApp: TestApp;
  let synAdmin: TestUser;
  const apt28 = { uuid: uuid(), value: "APT28", description: "", meta: { synonyms: ["Fancy Bear", "Sofacy", "STRONTIUM"], country: "RU" } };
  const apt29 = { uuid: uuid(), value: "APT29", description: "", meta: { synonyms: ["Cozy Bear", "The Dukes"] } };
  const single = { uuid: uuid(), value: "Lone", description: "", meta: { synonyms: "Solitary Bear" } };
  const tagOf = (v: string) => `misp-galaxy:threat-actor="${v}"`;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "wb-galaxies-syn-"));
    fs.mkdirSync(path.join(scratch, "galaxies"));
    fs.mkdirSync(path.join(scratch, "clusters"));
    fs.writeFileSync(path.join(scratch, "galaxies/threat-actor.json"), JSON.stringify(galaxyFile("threat-actor")));
    fs.writeFileSync(path.join(scratch, "clusters/threat-actor.json"), JSON.stringify(clusterFile("threat-actor", [apt28, apt29, single, cluster("Nobody")])));
    synApp = await startTestApp("galaxies-synonyms", { GALAXY_SOURCE: scratch });
    synAdmin = await loginAdmin(synApp);
    expect((await synApp.http.post("/galaxies/update", { token: synAdmin.token })).status).toBe(200);
    const [{ id }] = await sql<{ id: number }>(synApp, "SELECT id FROM galaxies WHERE type = 'threat-actor'");
    expect((await synApp.http.patch(`/galaxies/${id}`, { token: synAdmin.token, json: { enabled: true } })).status).toBe(200);
  });
  afterAll(async () => {
    await synApp?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("finds a cluster's tag by a synonym (a LIKE pattern, case-insensitive), with its cluster; MISP's error body for hostile bodies", async () => {
    const res = await synApp.http.post("/api-keys/", { token: synAdmin.token, json: { name: "syn", scopes: ["tags:read", "galaxies:read"] } });
    expect(res.status, res.text).toBe(201);
    const search = (json: unknown) => synApp.http.request("POST", "/misp/tags/search", { authorization: res.body.token, json, headers: { accept: "application/json" } });
    const names = async (json: unknown) => {
      const r = await search(json);
      expect(r.status, r.text).toBe(200);
      return (r.body as any[]).map((h) => h.Tag.name).sort();
    };
    const fancy = await search({ tag: "fancy BEAR" });
    expect(fancy.body).toHaveLength(1);
    expect(fancy.body[0].GalaxyCluster).toMatchObject({ uuid: apt28.uuid, value: "APT28", tag_name: tagOf("APT28"), meta: { synonyms: ["Fancy Bear", "Sofacy", "STRONTIUM"], country: ["RU"] } });
    expect(await names({ tag: "%bear" })).toEqual([tagOf("APT28"), tagOf("APT29"), tagOf("Lone")]);
    expect(await names({ tag: "c_zy%" })).toEqual([tagOf("APT29")]);
    expect(await names({ tagname: ["sofacy", "the dukes"] })).toEqual([tagOf("APT28"), tagOf("APT29")]);
    expect(await names({ tag: "Bear" })).toEqual([]);
    expect(await names({ tag: "Fancy Bear", strict_tagname: true })).toEqual([]);
    for (const json of [{ tag: 7 }, { tag: [null] }, { tag: "" }, { tagname: "%".repeat(256) }, []]) {
      const bad = await search(json);
      expect([400, 403, 405], bad.text).toContain(bad.status);
      expect(bad.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: expect.stringMatching(/tags\/search$/) });
    }
  });
});

describe("URL sources", () => {
  let server: http.Server;
  let base: string;
  let remote: TestApp;
  let remoteAdmin: TestUser;
  const files = new Map<string, { status?: number; body?: string; length?: number }>();
  const attack = { galaxy: galaxyFile("mitre-attack-pattern"), clusters: clusterFile("mitre-attack-pattern", [cluster("Remote - T0001", "T0001")]) };
  const update = () => remote.http.post("/galaxies/update", { token: remoteAdmin.token });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const f = files.get(req.url ?? "");
      if (!f) return res.writeHead(404).end("not found");
      if (f.length !== undefined) {
        res.writeHead(200, { "content-length": String(f.length) });
        return res.write("[");
      }
      res.writeHead(f.status ?? 200, { "content-type": "application/json" }).end(f.body ?? "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/misp-galaxy/`;
    remote = await startTestApp("galaxies-url", { GALAXY_SOURCE: base });
    remoteAdmin = await loginAdmin(remote);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await remote?.close();
  });

  it("without an index, fetches mitre-attack-pattern (and the galaxies already known)", async () => {
    expect((await update()).status).toBe(503); // nothing there at all
    files.set("/misp-galaxy/galaxies/mitre-attack-pattern.json", { body: JSON.stringify(attack.galaxy) });
    files.set("/misp-galaxy/clusters/mitre-attack-pattern.json", { body: JSON.stringify(attack.clusters) });
    const res = await update();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ galaxies: 1, clusters_created: 1 });
    expect((await audits(remote, "galaxy.updated"))[0].metadata).toMatchObject({ source: "url", names: ["mitre-attack-pattern"] });
  });

  it("follows an index.json and refuses names that could leave the base path", async () => {
    files.set("/misp-galaxy/index.json", { body: JSON.stringify(["mitre-attack-pattern.json", "../../etc/passwd"]) });
    const bad = await update();
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('unsupported galaxy name "../../etc/passwd"');
    files.set("/misp-galaxy/index.json", { body: JSON.stringify(["mitre-attack-pattern", "omega"]) });
    files.set("/misp-galaxy/galaxies/omega.json", { body: JSON.stringify(galaxyFile("omega")) });
    const noClusters = await update();
    expect(noClusters.status).toBe(400);
    expect(noClusters.body.detail).toBe("clusters/omega.json is missing");
    files.set("/misp-galaxy/clusters/omega.json", { body: JSON.stringify(clusterFile("omega", [cluster("O")])) });
    const ok = await update();
    expect(ok.body).toMatchObject({ galaxies: 2, clusters_created: 1, clusters_unchanged: 1 });
  });

  it("answers 503 when the source fails and 400 when a file is larger than the cap", async () => {
    files.set("/misp-galaxy/clusters/omega.json", { status: 502, body: "bad gateway" });
    const down = await update();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: "Galaxy source answered HTTP 502 for clusters/omega.json", code: "service_unavailable" });
    files.set("/misp-galaxy/clusters/omega.json", { length: 65 * 1024 * 1024 });
    const big = await update();
    expect(big.status).toBe(400);
    expect(big.body.detail).toContain("clusters/omega.json is larger than");
  });
});
