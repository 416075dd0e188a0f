/**
 * fw-attack-pattern hunts with the real ATT&CK galaxy of ../shared/data/misp-galaxy, on each search
 * backend: real PyMISP events carrying its tags (an event tag T1441, an object attribute tag T1069),
 * plus feed events tagged through the API. Codes, cluster uuids and full tag names resolve at run
 * time against the imported and enabled galaxy; whatever does not resolve is a 400 naming it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const BABYSHARK = "5c706a30-8ad4-4fcc-9e17-4d3d02de0b81"; // event tag: Stolen Developer Credentials or Signing Keys - T1441
const PUBG = "5acc88e9-265c-4f22-9d2b-b702950d210f"; // an object attribute tagged Permission Groups Discovery - T1069
const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8";
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4";
const T1059 = 'misp-galaxy:mitre-attack-pattern="Command and Scripting Interpreter - T1059"';
const T1059_001 = 'misp-galaxy:mitre-attack-pattern="PowerShell - T1059.001"';
const T1059_UUID = "7385dfaf-6886-4229-9ecd-6fd678040830";
const T1069_ATTRIBUTE = "5acd1ad7-c180-4b13-bb89-45ba02de0b81";

const readJson = (...p: string[]) => JSON.parse(fs.readFileSync(sharedPath(...p), "utf8"));

describe.each(SEARCH_BACKENDS)("fw-attack-pattern hunts on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser;
  let galaxyId: number;
  let metacoinAttribute: string;
  const hunt = async (query: string, index_target?: string) => {
    const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "techniques", query, hunt_type: "fw-attack-pattern", ...(index_target ? { index_target } : {}) } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const run = (id: number) => app.http.post(`/hunts/${id}/run`, { token: analyst.token });

  beforeAll(async () => {
    app = await startTestApp("hunts-attack", { ROLE: "all", GALAXY_SOURCE: sharedPath("misp-galaxy"), ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, 3);
    for (const file of [["misp-events", "pymisp-reportlab-image_event.json"], ["misp-events", "pymisp-reportlab-galaxy_1.json"], ["misp-feed-sample", `${VOLTA}.json`], ["misp-feed-sample", `${METACOIN}.json`]]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: readJson(...file) });
      expect(res.status, res.text).toBe(201);
    }
    expect((await app.http.post(`/events/${VOLTA}/tag/${encodeURIComponent(T1059)}`, { token: admin.token })).status).toBe(201);
    const attrs = await app.http.get(`/attributes/?event_uuid=${METACOIN}&size=1`, { token: admin.token });
    metacoinAttribute = attrs.body.items[0].uuid;
    expect((await app.http.post(`/attributes/${metacoinAttribute}/tag/${encodeURIComponent(T1059_001)}`, { token: admin.token })).status).toBe(201);
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("answers 400 until the galaxy is imported and enabled, naming the codes", async () => {
    const h = await hunt("T1441");
    const missing = await run(h.id);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "bad_request", unresolved: ["T1441"] });
    expect(missing.body.detail).toMatch(/T1441.*not imported/);
    expect((await app.http.post("/galaxies/update", { token: admin.token })).status).toBe(200);
    galaxyId = (await app.http.get("/galaxies/?filter=Attack%20Pattern", { token: admin.token })).body.items[0].id;
    const disabled = await run(h.id);
    expect(disabled.status).toBe(400);
    expect(disabled.body.detail).toMatch(/not enabled/);
    expect((await app.http.patch(`/galaxies/${galaxyId}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    // The failed runs are in the history with their reason; there is no result yet.
    const history = (await app.http.get(`/hunts/${h.id}/history`, { token: analyst.token })).body;
    expect(history.map((r: any) => r.status)).toEqual(["failed", "failed"]);
    expect((await app.http.get(`/hunts/${h.id}/results`, { token: analyst.token })).status).toBe(404);
  });

  it("finds events carrying a technique's tag (events index by default): uuid, info, tags; no _doc_kind", async () => {
    const h = await hunt("T1441");
    expect(h.index_target).toBe("events");
    const res = await run(h.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(1);
    const [hit] = res.body.hits;
    expect(hit).toMatchObject({ uuid: BABYSHARK, info: expect.stringMatching(/BabyShark/), is_new: false });
    expect(hit.tags.map((t: any) => t.name)).toContain('misp-galaxy:mitre-attack-pattern="Stolen Developer Credentials or Signing Keys - T1441"');
    expect(hit).not.toHaveProperty("_doc_kind");
  });

  it("finds attributes, exactly per technique (T1059 is not T1059.001), by code, cluster uuid or full tag name", async () => {
    const byCode = await run((await hunt("t1069", "attributes")).id);
    expect(byCode.body.total).toBe(1);
    expect(byCode.body.hits[0]).toMatchObject({ uuid: T1069_ATTRIBUTE, event_uuid: PUBG });
    expect(byCode.body.hits[0]).not.toHaveProperty("_doc_kind");

    const sub = await run((await hunt("T1059.001", "attributes")).id);
    expect(sub.body.hits.map((h: any) => h.uuid)).toEqual([metacoinAttribute]);
    expect((await run((await hunt("T1059", "attributes")).id)).body.total).toBe(0);
    expect((await run((await hunt(T1059_UUID, "events")).id)).body.hits.map((h: any) => h.uuid)).toEqual([VOLTA]);
    expect((await run((await hunt(T1059, "events")).id)).body.hits.map((h: any) => h.uuid)).toEqual([VOLTA]);
  });

  it("searches both indices for attributes_and_events, each hit saying what it is", async () => {
    const h = await hunt(`T1059, ${T1059_001}\nT1441,t1069`, "attributes_and_events");
    const res = await run(h.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(4);
    const kinds = Object.fromEntries(res.body.hits.map((x: any) => [x.uuid, x._doc_kind]));
    expect(kinds).toEqual({ [VOLTA]: "event", [BABYSHARK]: "event", [metacoinAttribute]: "attribute", [T1069_ATTRIBUTE]: "attribute" });
  });

  it("does not resolve a cluster of another galaxy (APT1 of mitre-intrusion-set, enabled), by uuid or tag", async () => {
    // The intrusion-set galaxy and its APT1 cluster as MISP names them (galaxy 1023f364-..., cluster
    // 6a2e693f-..., as in the PyMISP event pymisp-reportlab-galaxy_1.json); only ATT&CK data is shared.
    const pool = app.booted.ctx.db.pool;
    const { rows } = await pool.query<{ id: number }>(
      `INSERT INTO galaxies (uuid, name, type, namespace, enabled) VALUES ('1023f364-7831-11e7-8318-43b5531983ab', 'Intrusion Set', 'mitre-intrusion-set', 'mitre-attack', true)
       ON CONFLICT DO NOTHING RETURNING id`,
    );
    if (rows[0]) {
      await pool.query(
        `INSERT INTO galaxy_clusters (uuid, galaxy_id, type, value, tag_name, external_ids) VALUES ('6a2e693f-24e5-451a-9f88-b36a108e5662', $1, 'mitre-intrusion-set', 'APT1 - G0006', 'misp-galaxy:mitre-intrusion-set="APT1 - G0006"', ARRAY['G0006'])`,
        [rows[0].id],
      );
    }
    const res = await run((await hunt("6a2e693f-24e5-451a-9f88-b36a108e5662, T1441")).id);
    expect(res.status).toBe(400);
    expect(res.body.unresolved).toEqual(["6a2e693f-24e5-451a-9f88-b36a108e5662"]);
    const asTag = await app.http.post("/hunts/", { token: analyst.token, json: { name: "x", query: 'misp-galaxy:mitre-intrusion-set="APT1 - G0006"', hunt_type: "fw-attack-pattern" } });
    expect(asTag.status).toBe(400);
  });

  it("answers 400 naming the codes that do not resolve, and records the failed run", async () => {
    const h = await hunt(`T1059, T9999\n${crypto.randomUUID()}, T1059.999`);
    const res = await run(h.id);
    expect(res.status).toBe(400);
    expect(res.body.unresolved).toHaveLength(3);
    expect(res.body.unresolved).toEqual(expect.arrayContaining(["T9999", "T1059.999"]));
    expect(res.body.detail).toMatch(/^Unknown MITRE ATT&CK technique\(s\): .*T9999/);
    expect((await app.http.get(`/hunts/${h.id}`, { token: analyst.token })).body).toMatchObject({ last_run_status: "failed", last_match_count: null });
  });

  const malformed: [string, string][] = [
    ["a word", "powershell"],
    ["a code without T", "1059"],
    ["a tag of another galaxy", 'misp-galaxy:threat-actor="APT28"'],
    ["SQL", "T1059' OR '1'='1"],
    ["10 000 codes", Array.from({ length: 10_000 }, (_, i) => `T${String(1000 + (i % 9000)).padStart(4, "0")}`).join(",")],
    ["only separators", ",\n, ,"],
  ];
  it.each(malformed)("refuses %s at creation with a 4xx, storing nothing", async (_what, query) => {
    const before = (await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM hunts")).rows[0].n;
    const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "bad", query, hunt_type: "mitre-attack-pattern" } });
    expect([400, 422]).toContain(res.status);
    expect((await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM hunts")).rows[0].n).toBe(before);
  });

  it("refuses index targets that do not fit the type with 422", async () => {
    const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "bad", query: "T1059", hunt_type: "fw-attack-pattern", index_target: "correlations" } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "index_target"]);
  });
});
