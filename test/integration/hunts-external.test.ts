/**
 * cpe and rules hunts against real HTTP servers on loopback standing in for the vulnerability
 * database and the rules service (serving the real CVE records of ../shared/data, paging, and
 * failing on demand), and the bad input of their queries. A failed run must never look like
 * "0 results": it is recorded with its reason, answered 503, keeps the last good results and
 * alerts nobody.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { realCveRecords, ruleFor, startStandIn, withCveId, type StandIn } from "../support/external-services.ts";

let app: TestApp;
let vulnDb: StandIn;
let rulesService: StandIn;
let admin: TestUser;
let analyst: TestUser;
const real = realCveRecords();
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const DEFAULT_SETTINGS = { request_timeout_seconds: 2, max_attempts: 2, max_response_bytes: 4 * 1024 ** 2, max_cpe_pages: 999, run_timeout_seconds: 60 };

async function huntSettings(value: Partial<typeof DEFAULT_SETTINGS> = {}): Promise<void> {
  const res = await app.http.post("/settings/runtime/hunts", { token: admin.token, json: { ...DEFAULT_SETTINGS, ...value } });
  expect(res.status, res.text).toBe(200);
}
async function createHunt(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await app.http.post("/hunts/", { token: analyst.token, json: body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const run = (id: number) => app.http.post(`/hunts/${id}/run`, { token: analyst.token });
const alertsOf = async (huntId: number) =>
  (await q("SELECT type, payload FROM notifications WHERE user_id = $1 AND (payload->>'hunt_id')::int = $2 ORDER BY id", [analyst.id, huntId])).rows;

beforeAll(async () => {
  vulnDb = await startStandIn();
  rulesService = await startStandIn();
  app = await startTestApp("hunts-external", { VULN_DB_URL: vulnDb.url, RULES_URL: `${rulesService.url}/` });
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await vulnDb?.close();
  await rulesService?.close();
});
beforeEach(async () => {
  vulnDb.clear();
  rulesService.clear();
  vulnDb.requests.length = 0;
  rulesService.requests.length = 0;
  await huntSettings();
});

describe("cpe hunts", () => {
  it("reads every page of the real reply: each CVE once with severity (CVSS 4.0, 3.1, 3.0; CNA then ADP) and the English description", async () => {
    const synthetic = Array.from({ length: 247 }, (_, i) => withCveId(i % 2 ? real.xz : real.pan, `CVE-2099-${String(10000 + i)}`));
    vulnDb.records = [real.pan, real.xz, real.log4shell, ...synthetic, real.pan /* a repeat is counted once */];
    const hunt = await createHunt({ name: "pan-os", query: "cpe:2.3:o:paloaltonetworks:pan-os", hunt_type: "cpe", index_target: "attributes" });
    expect(hunt).toMatchObject({ hunt_type: "cpe", index_target: null });
    const res = await run(hunt.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(250);
    expect(res.body.hits).toHaveLength(250);
    expect(res.body.hits.slice(0, 3)).toEqual([
      { cve_id: "CVE-2024-3400", severity: "CRITICAL", description: real.pan.containers.cna.descriptions[0].value, is_new: false },
      { cve_id: "CVE-2024-3094", severity: "CRITICAL", description: expect.stringMatching(/^Malicious code was discovered in the upstream tarballs of xz/), is_new: false },
      // Log4Shell: the CNA gives no CVSS, CISA's ADP container gives 3.1 CRITICAL.
      { cve_id: "CVE-2021-44228", severity: "CRITICAL", description: expect.stringContaining("Log4j2"), is_new: false },
    ]);
    expect(vulnDb.requests).toEqual([1, 2, 3].map((p) => `/api/vulnerability/cpesearch/cpe:2.3:o:paloaltonetworks:pan-os?date_sort=published&sort_order=desc&per_page=100&page=${p}`));
  });

  it("leaves severity out when there is no CVSS score, and marks CVEs that were not in the previous run as new", async () => {
    const unscored = structuredClone(real.xz);
    unscored.cveMetadata.cveId = "CVE-2099-00001";
    delete unscored.containers.cna.metrics;
    delete unscored.containers.adp;
    vulnDb.records = [real.pan];
    const hunt = await createHunt({ name: "xz", query: "cpe:2.3:a:tukaani:xz:5.6.0", hunt_type: "cpe" });
    expect((await run(hunt.id)).body.hits).toEqual([expect.objectContaining({ cve_id: "CVE-2024-3400", is_new: false })]);
    vulnDb.records = [unscored, real.pan];
    const second = await run(hunt.id);
    expect(second.body.hits).toEqual([
      { cve_id: "CVE-2099-00001", description: expect.any(String), is_new: true },
      expect.objectContaining({ cve_id: "CVE-2024-3400", is_new: false }),
    ]);
    expect((await alertsOf(hunt.id)).map((a) => [a.type, a.payload.total, a.payload.previous_total, a.payload.new_hits])).toEqual([
      ["hunt.result.first_run", 1, null, ["CVE-2024-3400"]],
      ["hunt.result.changed", 2, 1, ["CVE-2099-00001"]],
    ]);
  });

  it("retries a transient failure and succeeds", async () => {
    vulnDb.records = [real.pan];
    vulnDb.fail("status", { times: 1, status: 502 });
    const hunt = await createHunt({ name: "transient", query: "cpe:2.3:o:paloaltonetworks:pan-os", hunt_type: "cpe" });
    const res = await run(hunt.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(1);
    expect(vulnDb.requests).toHaveLength(2);
  });

  const failures: [string, () => void, RegExp][] = [
    ["HTTP 500 on the second page", () => vulnDb.fail("status", { page: 2 }), /HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/api\/vulnerability\/cpesearch\/.* \(after 2 attempts\)/],
    ["HTTP 404", () => vulnDb.fail("status", { status: 404 }), /HTTP 404/],
    ["no answer", () => vulnDb.fail("silence"), /no answer from .* within 1000 ms/],
    ["malformed JSON", () => vulnDb.fail("malformed"), /not JSON/],
    ["a 2 GB answer", () => vulnDb.fail("endless"), /more than the 8388608 bytes allowed/],
    ["an error object", () => (vulnDb.rawReply = { error: "database is being rebuilt" }), /answered an error: database is being rebuilt/],
    ["a reply without a list", () => (vulnDb.rawReply = { message: "maintenance" }), /holds no list of vulnerabilities/],
  ];
  it.each(failures)("%s: a failed run with the reason (503), the last good results and count kept, no alert", async (_what, breakIt, reason) => {
    await huntSettings({ request_timeout_seconds: 1, max_response_bytes: 8 * 1024 ** 2 });
    vulnDb.records = Array.from({ length: 150 }, (_, i) => withCveId(real.pan, `CVE-2099-${String(20000 + i)}`));
    const hunt = await createHunt({ name: "failing", query: "cpe:2.3:o:paloaltonetworks:pan-os", hunt_type: "cpe" });
    const good = await run(hunt.id);
    expect(good.body.total).toBe(150);
    const alertsBefore = await alertsOf(hunt.id);

    breakIt();
    const started = Date.now();
    const failed = await run(hunt.id);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(failed.status, failed.text).toBe(503);
    expect(failed.body).toMatchObject({ code: "upstream_unavailable" });
    expect(failed.body.detail).toMatch(/^the vulnerability database: /);
    expect(failed.body.detail).toMatch(reason);

    const hunt2 = (await app.http.get(`/hunts/${hunt.id}`, { token: analyst.token })).body;
    expect(hunt2).toMatchObject({ last_match_count: 150, last_run_status: "failed", last_run_error: failed.body.detail });
    const cached = await app.http.get(`/hunts/${hunt.id}/results`, { token: analyst.token });
    expect(cached.body.total).toBe(150);
    expect(cached.body.hits).toEqual(good.body.hits);
    const history = (await app.http.get(`/hunts/${hunt.id}/history`, { token: analyst.token })).body;
    expect(history.map((h: any) => [h.status, h.match_count])).toEqual([["failed", null], ["succeeded", 150]]);
    expect(history[0].error).toBe(failed.body.detail);
    expect(await alertsOf(hunt.id)).toEqual(alertsBefore);
    expect((await app.http.get("/healthz")).status).toBe(200);

    // Back to normal: the same 150 CVEs, so no alert either.
    vulnDb.clear();
    const again = await run(hunt.id);
    expect(again.body.total).toBe(150);
    expect(await alertsOf(hunt.id)).toEqual(alertsBefore);
  });

  it("stops at the page limit of the runtime settings", async () => {
    await huntSettings({ max_cpe_pages: 2 });
    vulnDb.records = Array.from({ length: 450 }, (_, i) => withCveId(real.pan, `CVE-2099-${String(30000 + i)}`));
    const hunt = await createHunt({ name: "many", query: "cpe:2.3:o:paloaltonetworks", hunt_type: "cpe" });
    expect((await run(hunt.id)).body.total).toBe(200);
    expect(vulnDb.requests).toHaveLength(2);
  });

  const badCpes = [
    "paloaltonetworks:pan-os",
    "cpe:/o:paloaltonetworks:pan-os",
    "cpe:2.3:x:paloaltonetworks:pan-os",
    "cpe:2.3:o",
    "cpe:2.3:o:palo alto:pan-os",
    "cpe:2.3:o:paloaltonetworks:pan-os:../../etc/passwd",
    "cpe:2.3:o:paloaltonetworks:pan-os' OR 1=1",
    "cpe:2.3:o:a:b:c:d:e:f:g:h:i:j:k:l",
    "cpe:2.3:a:vendor:product:1.0:*:*:english",
    `cpe:2.3:o:${"a".repeat(2000)}`,
  ];
  it.each(badCpes)("refuses the malformed CPE %s with a 400, storing nothing", async (query) => {
    const before = (await q("SELECT count(*)::int AS n FROM hunts")).rows[0].n;
    const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "bad", query, hunt_type: "cpe" } });
    expect([400, 422]).toContain(res.status);
    expect(res.body.code).toMatch(/bad_request|validation_error/);
    expect((await q("SELECT count(*)::int AS n FROM hunts")).rows[0].n).toBe(before);
  });

  it("accepts real CPE forms: a prefix, escaped characters, wildcards and NA", async () => {
    for (const query of ["cpe:2.3:o:paloaltonetworks:pan-os", "cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:*:*:*:*:*", "cpe:2.3:a:foo\\\\bar:big\\$money:2010:*:*:en-us:*:*:*:-", "cpe:2.3:h:*:cisco*"]) {
      const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "cpe", query, hunt_type: "cpe" } });
      expect(res.status, `${query}: ${res.text}`).toBe(201);
    }
  });
});

describe("rules hunts", () => {
  it("looks up the id lower-cased; total is the number of rules, hits as the service returns them, new ones by detail_url", async () => {
    rulesService.rules.set("cve-2021-44228", [ruleFor("cve-2021-44228", 1), ruleFor("cve-2021-44228", 2)]);
    const hunt = await createHunt({ name: "log4shell rules", query: "CVE-2021-44228", hunt_type: "rulezet" });
    expect(hunt).toMatchObject({ hunt_type: "rules", index_target: null });
    const first = await run(hunt.id);
    expect(first.status, first.text).toBe(200);
    expect(first.body.total).toBe(2);
    expect(first.body.hits).toEqual([1, 2].map((n) => ({ ...ruleFor("cve-2021-44228", n), is_new: false })));
    expect(rulesService.requests).toEqual(["/api/rule/public/search_rules_by_cve?cve_ids=cve-2021-44228"]);

    rulesService.rules.set("cve-2021-44228", [ruleFor("cve-2021-44228", 3), ruleFor("cve-2021-44228", 1), ruleFor("cve-2021-44228", 2)]);
    const second = await run(hunt.id);
    expect(second.body.hits.map((h: any) => [h.id, h.is_new])).toEqual([[1003, true], [1001, false], [1002, false]]);
    expect((await alertsOf(hunt.id)).map((a) => [a.type, a.payload.new_hits])).toEqual([
      ["hunt.result.first_run", ["https://rulezet.org/rule/detail_rule/1001", "https://rulezet.org/rule/detail_rule/1002"]],
      ["hunt.result.changed", ["https://rulezet.org/rule/detail_rule/1003"]],
    ]);
  });

  it("reads the other reply shapes, and fails on an error reply instead of answering 0 rules", async () => {
    const hunt = await createHunt({ name: "ghsa", query: "GHSA-jfh8-c2jp-5v3q", hunt_type: "rules" });
    rulesService.rawReply = { count: 1, rules: [ruleFor("ghsa", 1)] };
    expect((await run(hunt.id)).body.total).toBe(1);
    rulesService.rawReply = { rules: { "ghsa-jfh8-c2jp-5v3q": [ruleFor("ghsa", 1), ruleFor("ghsa", 2)] } };
    expect((await run(hunt.id)).body.total).toBe(2);
    rulesService.rawReply = { error: "No match for CVE id" };
    const failed = await run(hunt.id);
    expect(failed.status).toBe(503);
    expect(failed.body.detail).toMatch(/^the rules service: it answered an error: No match for CVE id/);
    rulesService.rawReply = { results: [1, 2] };
    expect((await run(hunt.id)).body.detail).toMatch(/not a rule object/);
    expect((await app.http.get(`/hunts/${hunt.id}`, { token: analyst.token })).body.last_match_count).toBe(2);
  });

  const hostile = ["CVE-2024-1' OR 1=1", "CVE-2024-1234/../../admin", "../../etc/passwd", "CVE-2024-1234?cve_ids=x", "CVE-2024-1234 CVE-2024-5678", "cve-2024", "", "<script>", "CVE-2024-1234\n"];
  it.each(hostile)("refuses %j as a rules query with a 4xx, storing nothing", async (query) => {
    const before = (await q("SELECT count(*)::int AS n FROM hunts")).rows[0].n;
    const res = await app.http.post("/hunts/", { token: analyst.token, json: { name: "bad", query, hunt_type: "rules" } });
    expect([400, 422]).toContain(res.status);
    expect((await q("SELECT count(*)::int AS n FROM hunts")).rows[0].n).toBe(before);
    expect(rulesService.requests).toEqual([]);
  });
});
