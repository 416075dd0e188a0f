/**
 * Posting keys of the PostgreSQL search backend (src/search/postgres/postings.ts): code point order
 * of the encoded terms must be the order of the values, since ranges are key ranges.
 */
import { describe, expect, it } from "vitest";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { planPostings, type TermPattern } from "../../src/search/postgres/postings-plan.ts";
import { parseCidr, parseIp } from "../../src/search/postgres/ip.ts";
import { cidrTerms, ipTerm, longTerm, MAX_TERM, postingKeys, prefixRange, termKey } from "../../src/search/postgres/postings.ts";

const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe("posting terms", () => {
  it("longs sort numerically, negatives included, at the ends of the long range", () => {
    const values = [-(2n ** 63n), -1_000_000n, -10n, -9n, -1n, 0n, 1n, 9n, 10n, 1_700_000_000_000n, 2n ** 63n - 1n];
    const shuffled = [...values].reverse().map(longTerm).sort(byCodePoint);
    expect(shuffled).toEqual(values.map(longTerm));
    expect(new Set(values.map((v) => longTerm(v).length))).toEqual(new Set([20]));
  });

  it("IP addresses sort as addresses within a family, IPv4 before IPv6, and CIDR blocks are their first and last address", () => {
    const v4 = ["0.0.0.0", "9.255.255.255", "10.0.0.0", "10.0.0.1", "66.0.0.0", "66.255.255.255", "255.255.255.255"];
    const v6 = ["::", "::1", "2001:db8::", "2001:db8::ffff", "fe80::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"];
    const all = [...v4, ...v6].map((ip) => ipTerm(parseIp(ip)!));
    expect([...all].reverse().sort(byCodePoint)).toEqual(all);
    expect(cidrTerms(parseCidr("66.0.0.0/8")!)).toEqual([ipTerm("66.0.0.0"), ipTerm("66.255.255.255")]);
    expect(cidrTerms(parseCidr("10.1.2.3/31")!)).toEqual([ipTerm("10.1.2.2"), ipTerm("10.1.2.3")]);
    expect(cidrTerms(parseCidr("0.0.0.0/0")!)).toEqual([ipTerm("0.0.0.0"), ipTerm("255.255.255.255")]);
    expect(cidrTerms(parseCidr("2001:db8::/32")!)).toEqual([ipTerm(parseIp("2001:db8::")!), ipTerm(parseIp("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff")!)]);
    expect(ipTerm(parseIp("::ffff:1.2.3.4")!)).toBe(ipTerm("1.2.3.4"));
    expect(ipTerm(parseIp("::1.2.3.4")!)).toBe(`6${"0".repeat(24)}01020304`);
  });

  it("long strings keep a marked prefix: no short term equals it, a short prefix still finds it", () => {
    const long = "x".repeat(MAX_TERM + 50);
    const key = termKey("svc-attributes", "value.keyword", long);
    expect(key).not.toBe(termKey("svc-attributes", "value.keyword", "x".repeat(MAX_TERM)));
    const [lo, hi] = prefixRange("svc-attributes", "value.keyword", "x".repeat(MAX_TERM));
    expect(byCodePoint(key, lo) >= 0 && byCodePoint(key, hi) <= 0).toBe(true);
    expect(Buffer.byteLength(termKey("svc-attributes", "value.keyword", "\u{1F600}".repeat(10_000)))).toBeLessThan(1_100);
  });

  it("a document's keys: every field's terms but the bookkeeping fields', adjacent token pairs of text values (not across values), match-all", () => {
    const keys = postingKeys(
      "svc-attributes",
      { type: ["ip", "dst"], "type.keyword": ["ip-dst"], deleted: [false], to_ids: [true], visible_to: [-1], event_org_id: [1], timestamp: [1700000000], "@timestamp": [1700000000000], "expanded.ip": ["10.0.0.1"], "expanded.ip_range": ["10.0.0.0/24"] },
      { type: [["ip", "dst"]], "tags.name": [["a"], ["b"]] },
    );
    expect(keys.sort()).toEqual(
      [
        "a\u0001",
        "atype\u0001ip",
        "atype\u0001dst",
        "atype\u0002ip dst",
        "atype.keyword\u0001ip-dst",
        "ato_ids\u0001true",
        `atimestamp\u0001${longTerm(1700000000n)}`,
        `aexpanded.ip\u0001${ipTerm("10.0.0.1")}`,
      ].sort(),
    );
  });
});

describe("patterns for the term dictionary", () => {
  const patternOf = (q: string): TermPattern | undefined => {
    const plan = planPostings(
      {
        index: "svc-attributes",
        query: parseLucene(q),
        defaultFields: INDEX_FIELDS["svc-attributes"].defaultFields,
        access: { admin: true, orgId: null },
        from: 0,
        size: 10,
        sort: { field: "@timestamp", order: "desc" },
        timeoutMs: 1_000,
      },
      Date.now(),
    );
    const item = plan?.conjunction?.pos[0];
    return item && "source" in item ? item.source.patterns?.[0] : undefined;
  };

  it("wildcards: lower-cased on text fields, their lengths, and whether pg_trgm has a trigram to look up", () => {
    expect(patternOf("value:*ForUkraine*")).toEqual({ field: "avalue", like: "%forukraine%", minLength: 10, maxLength: Infinity, trigrams: true });
    expect(patternOf("value.keyword:*.Top")).toMatchObject({ field: "avalue.keyword", like: "%.Top", trigrams: true });
    expect(patternOf("type:md?")).toEqual({ field: "atype", like: "md_", minLength: 3, maxLength: 3, trigrams: false });
    expect(patternOf(String.raw`value:a\*b?`)).toMatchObject({ like: "a*b_", minLength: 4, maxLength: 4, trigrams: false });
    expect(patternOf("value:*50%_off")).toMatchObject({ like: "%50\\%\\_off", trigrams: true });
    // A literal prefix then one `*` is a key range, not a pattern.
    expect(patternOf("value:ukraine*")).toBeUndefined();
  });

  it("regexes: anchored, their lengths, and trigrams only from literal runs", () => {
    expect(patternOf("value:/[0-9a-f]{32}/")).toMatchObject({ field: "avalue", minLength: 32, maxLength: 32, trigrams: false });
    expect(patternOf("value:/.*forukraine.*/")).toMatchObject({ minLength: 10, maxLength: Infinity, trigrams: true });
    expect(patternOf(String.raw`value:/\d{3}[a-z]+/`)).toMatchObject({ trigrams: false });
    expect(patternOf("value:/sha(1|256)/")?.regex).toBe("^(?:sha(?:(?:1|256)))$");
  });
});
