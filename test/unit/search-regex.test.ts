/**
 * Lucene regexes translated for PostgreSQL (src/search/postgres/regex.ts): the lengths of the strings
 * a regex matches bound the term dictionary's candidates, so they must never exclude a match. Each
 * regex's bounds are checked against strings it matches (PostgreSQL's ARE semantics are close enough
 * to JavaScript's for these patterns to test with RegExp).
 */
import { describe, expect, it } from "vitest";
import { luceneRegexToPostgres } from "../../src/search/postgres/regex.ts";

const CASES: [pattern: string, min: number, max: number, samples: string[]][] = [
  ["[0-9a-f]{32}", 32, 32, ["d41d8cd98f00b204e9800998ecf8427e"]],
  ["sha(1|256)", 4, 6, ["sha1", "sha256"]],
  ["ip-.*", 3, Infinity, ["ip-", "ip-dst"]],
  ["a+b?", 1, Infinity, ["a", "aaab"]],
  ["(ab){2,3}c", 5, 7, ["ababc", "abababc"]],
  ["x{0}", 0, 0, [""]],
  ["(.*){0,2}", 0, Infinity, ["", "anything"]],
  ['"a.b"c', 4, 4, ["a.bc"]],
  ["[^a]\\d\\w", 3, 3, ["b1_"]],
  ["()", 0, 0, [""]],
  ["@", 0, Infinity, ["", "abc"]],
  ["a|#", 1, 1, ["a"]],
  ["(#)*", 0, 0, [""]],
  ["ab\\.c", 4, 4, ["ab.c"]],
  ["\u{1F600}.", 2, 2, ["\u{1F600}x"]],
];

describe("regex lengths", () => {
  it.each(CASES)("%s matches strings of %d to %d code points", (pattern, min, max, samples) => {
    const re = luceneRegexToPostgres(pattern);
    expect([re.minLength, re.maxLength]).toEqual([min, max]);
    const js = new RegExp(re.anchored.replace(/\\-/g, "\\x2d"), "u");
    for (const s of samples) {
      expect(js.test(s), `${pattern} ~ ${s}`).toBe(true);
      expect([...s].length).toBeGreaterThanOrEqual(re.minLength);
      expect([...s].length).toBeLessThanOrEqual(re.maxLength);
    }
  });

  it.each([
    ["[0-9a-f]{32}", "^(?:(?:[0-9a-f])*)$"],
    ["x[ab]{1,3}yz", "^(?:x(?:[ab])*yz)$"],
    ["(a|b)c{2}d", "^(?:(?:(?:a|b))(?:c)*d)$"],
    [".{3}", "^(?:(?:.)*)$"],
    ["a{2}b{2}", null],
    ["a{2}b*", null],
    ["(ab){2}", null],
    ["a+", null],
    ["x|y{3}", null],
    ["abc", null],
  ])("%s: loose form %s", (pattern, loose) => {
    expect(luceneRegexToPostgres(pattern).loose).toBe(loose);
  });

  it("a loose form matches exactly the strings of the regex among those of its lengths", () => {
    const alphabet = ["a", "b", "c", "d", "x", "y", "z", "0", "9", "f"];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (const pattern of ["[0-9a-f]{3,5}", "x[ab]{1,3}yz", "(a|b)c{2}d", "[a-c]{0,4}x", "d.{2}"]) {
      const re = luceneRegexToPostgres(pattern);
      const exact = new RegExp(re.anchored, "su");
      const loose = new RegExp(re.loose!, "su");
      let matched = 0;
      for (let i = 0; i < 20_000; i++) {
        const length = re.minLength + Math.floor(random() * (re.maxLength - re.minLength + 1));
        const candidate = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
        if (exact.test(candidate)) matched++;
        expect(loose.test(candidate), `${pattern} ~ ${candidate}`).toBe(exact.test(candidate));
      }
      expect(matched, pattern).toBeGreaterThan(0);
    }
  });

  it("the empty language has no lengths", () => {
    for (const p of ["#", "a#", "#{2}"]) {
      const re = luceneRegexToPostgres(p);
      expect(re.minLength > re.maxLength, p).toBe(true);
    }
  });
});
