import { describe, expect, it } from "vitest";
import { exploreExportQuery, parseBound } from "../../src/modules/search/explore-export-input.ts";
import { csvCell, csvHeader, csvRecord, csvText, encodeExport } from "../../src/modules/search/export-formats.ts";
import type { SearchHit } from "../../src/search/search-index.ts";

const hit = (id: string, source: Record<string, unknown>): SearchHit => ({ index: "svc-attributes", id, score: null, source });

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const c of chunks) out += c;
  return out;
}

async function* pages(...ps: SearchHit[][]): AsyncGenerator<SearchHit[]> {
  for (const p of ps) yield p;
}

describe("CSV cells", () => {
  it("prefixes text starting with = + - @ TAB or CR with a single quote (formula injection), then quotes per RFC 4180", () => {
    expect(csvText("=HYPERLINK(\"http://x\")")).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvText("+1")).toBe("'+1");
    expect(csvText("-1")).toBe("'-1");
    expect(csvText("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvText("\tx")).toBe("'\tx");
    expect(csvText("\rx")).toBe(`"'\rx"`);
    expect(csvText("a=b")).toBe("a=b");
    expect(csvText("a,b")).toBe('"a,b"');
    expect(csvText("line\nbreak")).toBe('"line\nbreak"');
    expect(csvText("")).toBe("");
  });

  it("writes numbers and booleans as they are, null and missing as empty, objects as JSON", () => {
    expect(csvCell(-5)).toBe("-5");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell({ a: "=x" })).toBe('"{""a"":""=x""}"');
  });

  it("has the peer's columns and joins tag names", () => {
    expect(csvHeader("events")).toBe("uuid,info,date,threat_level,analysis,published,timestamp,org_id,orgc_id,tags\r\n");
    expect(csvRecord("attributes", { uuid: "u", value: "=1+1", to_ids: false, timestamp: 10, tags: [{ name: "tlp:clear" }, { name: "a,b" }] })).toBe(
      `u,,,,,,'=1+1,false,,10,,,"tlp:clear|a,b"\r\n`,
    );
  });
});

describe("encodeExport", () => {
  const out = (h: SearchHit) => ({ _id: h.id, _source: h.source });
  it("json: one array whatever the pages (also none)", async () => {
    expect(JSON.parse(await text(encodeExport("json", "attributes", pages(), out)))).toEqual([]);
    expect(JSON.parse(await text(encodeExport("json", "attributes", pages([], [hit("a", {})], [], [hit("b", {}), hit("c", {})]), out))).map((h: { _id: string }) => h._id)).toEqual(["a", "b", "c"]);
  });
  it("ndjson: one hit per line; csv: a header then a row per hit", async () => {
    expect(await text(encodeExport("ndjson", "attributes", pages([hit("a", { v: 1 })], [hit("b", {})]), out))).toBe('{"_id":"a","_source":{"v":1}}\n{"_id":"b","_source":{}}\n');
    expect(await text(encodeExport("csv", "events", pages([hit("a", { uuid: "a", info: "x" })]), out))).toBe(`${csvHeader("events")}a,x,,,,,,,,\r\n`);
  });
});

describe("from / to", () => {
  it("accepts epoch seconds, dates (to: the day's last millisecond) and ISO date-times (no zone: UTC)", () => {
    expect(parseBound("1700000000", false)?.toISOString()).toBe("2023-11-14T22:13:20.000Z");
    expect(parseBound("2024-02-29", false)?.toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(parseBound("2024-02-29", true)?.toISOString()).toBe("2024-02-29T23:59:59.999Z");
    expect(parseBound("2024-01-31T10:15", false)?.toISOString()).toBe("2024-01-31T10:15:00.000Z");
    expect(parseBound("2024-01-31T10:15:30.123456+02:00", false)?.toISOString()).toBe("2024-01-31T08:15:30.123Z");
    expect(parseBound("0000-01-01", false)?.toISOString()).toBe("0000-01-01T00:00:00.000Z");
  });
  it("refuses anything else", () => {
    for (const bad of ["2023-02-29", "2024-13-01", "2024-01-01T24:00", "2024-01-01T10:00+25:00", "253402300800", "-1", "1e9", "now-1d", "2024-01-01 10:00", ""]) {
      expect(parseBound(bad, false), bad).toBeNull();
    }
    expect(exploreExportQuery.safeParse({ query: "", from: "2024-02-01", to: "2024-01-31" }).success).toBe(false);
    expect(exploreExportQuery.safeParse({ query: "", from: "2024-01-31", to: "2024-01-31" }).success).toBe(true);
    expect(exploreExportQuery.safeParse({ query: "", format: "xlsx" }).success).toBe(false);
  });
});
