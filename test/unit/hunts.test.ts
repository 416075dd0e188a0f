import { describe, expect, it } from "vitest";
import { validateCpe } from "../../src/platform/cpe.ts";
import { isVulnerabilityId } from "../../src/modules/hunts/vulnerability-ids.ts";
import { alertFor, hitKey, markNewHits } from "../../src/modules/hunts/hit-keys.ts";
import { hitOf } from "../../src/integrations/vulnerability-lookup.ts";
import { realCveRecords } from "../support/external-services.ts";

describe("CPE 2.3 formatted strings", () => {
  it.each([
    "cpe:2.3:o:paloaltonetworks:pan-os",
    "cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:*:*:*:*:*",
    "cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*",
    "cpe:2.3:a:foo\\\\bar:big\\$money_manager_2010:*:*:*:*:special:ipod_touch:80gb:*",
    "cpe:2.3:a:apache:log4j:2.14.1:*:*:en-us",
    "cpe:2.3:h:cisco:asa*",
    "cpe:2.3:a:vendor:prod\\:uct",
  ])("accepts %s", (cpe) => expect(validateCpe(cpe)).toBeNull());

  it.each([
    ["cpe:/a:apache:log4j", /CPE 2.2 URI/],
    ["cpe:2.2:a:apache:log4j", /must start with cpe:2.3:/],
    ["cpe:2.3:a", /at least the part and the vendor/],
    ["cpe:2.3:q:apache:log4j", /part must be/],
    ["cpe:2.3:a:apache:log 4j", /product component/],
    ["cpe:2.3:a:apache:log4j:2.0:*:*:english", /language component/],
    ["cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*:*", /at most 11 components/],
    ["cpe:2.3:a:apache:lo*g4j", /product component/],
    ["cpe:2.3:a:apache:log4j/../../x", /product component/],
    ["cpe:2.3:a:apache::log4j", /product component/],
  ])("refuses %s", (cpe, why) => expect(validateCpe(cpe)).toMatch(why));
});

describe("vulnerability ids of rules hunts", () => {
  it.each(["CVE-2021-44228", "cve-2024-3400", "CVE-2024-1234567", "GHSA-jfh8-c2jp-5v3q", "PYSEC-2021-1", "RUSTSEC-2021-0001", "GO-2022-0001", "RHSA-2024:1234", "DSA-5678-1", "USN-6000-1", "cisco-sa-asaftd-ravpn-auth-8LyfCkeC"])(
    "accepts %s",
    (id) => expect(isVulnerabilityId(id)).toBe(true),
  );
  it.each(["CVE-2024-1' OR 1=1", "CVE-2024-12", "../CVE-2024-1234", "CVE-2024-1234/x", "GHSA-aaaa-bbbb", "T1059", "", "CVE-2024-1234\n", "CVE-2024-1234 "])("refuses %j", (id) =>
    expect(isVulnerabilityId(id)).toBe(false),
  );
});

describe("CVE records as cpe hits", () => {
  const { pan, log4shell } = realCveRecords();
  it("reads the real records: id, severity and English description", () => {
    expect(hitOf(pan)).toEqual({ cve_id: "CVE-2024-3400", severity: "CRITICAL", description: expect.stringMatching(/^A command injection/) });
    // The CNA container has no CVSS; CISA's ADP container has 3.1 CRITICAL.
    expect(hitOf(log4shell)).toMatchObject({ cve_id: "CVE-2021-44228", severity: "CRITICAL" });
  });
  it("takes CVSS 4.0 before 3.1 before 3.0, whatever their order, and the CNA's before an ADP's", () => {
    const r = structuredClone(pan);
    r.containers.cna.metrics = [{ cvssV3_0: { baseSeverity: "LOW" } }, { cvssV3_1: { baseSeverity: "HIGH" } }, { cvssV4_0: { baseSeverity: "medium" } }];
    expect(hitOf(r)?.severity).toBe("MEDIUM");
    r.containers.cna.metrics = [{ cvssV3_0: { baseSeverity: "LOW" } }];
    r.containers.adp = [{ metrics: [{ cvssV3_1: { baseSeverity: "HIGH" } }] }];
    expect(hitOf(r)?.severity).toBe("HIGH");
    r.containers.cna.metrics = [{ cvssV3_1: { baseSeverity: "CRITICAL" } }];
    expect(hitOf(r)?.severity).toBe("CRITICAL");
  });
  it("leaves severity out without a score (or with NONE), and finds no hit without a CVE id", () => {
    const r = structuredClone(pan);
    r.containers.cna.metrics = [{ cvssV4_0: { baseSeverity: "NONE" } }, { other: { type: "x" } }];
    delete r.containers.adp;
    expect(hitOf(r)).not.toHaveProperty("severity");
    expect(hitOf({ cveMetadata: { cveId: "GHSA-jfh8-c2jp-5v3q" } })).toBeNull();
    expect(hitOf("CVE-2024-3400")).toBeNull();
  });
  it("reads an NVD-shaped record", () => {
    expect(hitOf({ cve: { id: "CVE-2023-1234", descriptions: [{ lang: "es", value: "hola" }, { lang: "en", value: "hello" }], metrics: { cvssMetricV31: [{ cvssData: { baseSeverity: "HIGH" } }] } } })).toEqual({
      cve_id: "CVE-2023-1234",
      severity: "HIGH",
      description: "hello",
    });
  });
});

describe("hit keys, is_new and alerts", () => {
  it("keys hits as the peer does", () => {
    expect(hitKey({ uuid: "u" }, "search", "attributes")).toBe("u");
    expect(hitKey({ source_attribute_uuid: "s", target_attribute_uuid: "t", uuid: "x" }, "search", "correlations")).toBe("s|t");
    expect(hitKey({ cve_id: "CVE-1" }, "cpe", null)).toBe("CVE-1");
    expect(hitKey({ detail_url: "d", title: "t" }, "rules", null)).toBe("d");
    expect(hitKey({ title: "t" }, "rules", null)).toBe("t");
    expect(hitKey({}, "rules", null)).toBeNull();
  });
  it("marks nothing new without a previous result, then what the previous result lacked", () => {
    const hits = [{ uuid: "a" }, { uuid: "b" }, {}];
    expect(markNewHits(hits, "search", "attributes", null)).toEqual({ hits: hits.map((h) => ({ ...h, is_new: false })), keys: ["a", "b"], newKeys: [] });
    expect(markNewHits(hits, "search", "attributes", ["a"])).toMatchObject({ hits: [{ is_new: false }, { is_new: true }, { is_new: false }], newKeys: ["b"] });
  });
  it("alerts on the first run with results, a changed count, or new hits at the same count", () => {
    const never = { matchCount: null, everMatched: false };
    expect(alertFor(never, 0, [])).toBeNull();
    expect(alertFor({ matchCount: 0, everMatched: false }, 0, [])).toBeNull();
    expect(alertFor({ matchCount: 0, everMatched: false }, 3, [])).toBe("hunt.result.first_run");
    expect(alertFor({ matchCount: 3, everMatched: true }, 3, [])).toBeNull();
    expect(alertFor({ matchCount: 3, everMatched: true }, 3, ["x"])).toBe("hunt.result.changed");
    expect(alertFor({ matchCount: 3, everMatched: true }, 0, [])).toBe("hunt.result.changed");
    expect(alertFor({ matchCount: 3, everMatched: true }, 4, [])).toBe("hunt.result.changed");
  });
});
