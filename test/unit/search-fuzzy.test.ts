/**
 * Fuzzy terms of the PostgreSQL backend (`src/search/postgres/fuzzy.ts`): Lucene's distance
 * (optimal string alignment over code points), OpenSearch's AUTO and the choice of at most 50
 * expansions as Lucene's top-terms rewrite makes it.
 */
import { describe, expect, it } from "vitest";
import { autoEdits, editDistance, fuzzyExpansions } from "../../src/search/postgres/fuzzy.ts";

const d = (a: string, b: string, max = 2) => editDistance([...a], [...b], max);

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent transpositions as one edit each", () => {
    expect(d("emotet", "emotet")).toBe(0);
    expect(d("emotet", "emotte")).toBe(1);
    expect(d("emotet", "emote")).toBe(1);
    expect(d("emotet", "emotets")).toBe(1);
    expect(d("emotet", "emofet")).toBe(1);
    expect(d("ab", "ba")).toBe(1);
    expect(d("abc", "ca")).toBe(3); // optimal string alignment: no edit of a transposed pair
  });

  it("works on code points and stops past the bound", () => {
    expect(d("😀a", "a😀")).toBe(1);
    expect(d("日本語", "日本")).toBe(1);
    expect(d("abcdef", "uvwxyz")).toBe(3);
    expect(d("a", "abcdef")).toBe(3);
  });
});

describe("autoEdits", () => {
  it("gives 0 edits up to 2 code points, 1 up to 5, 2 beyond", () => {
    expect(["a", "ab", "abc", "abcde", "abcdef", "日本", "日本語"].map(autoEdits)).toEqual([0, 0, 1, 1, 2, 0, 1]);
  });
});

describe("fuzzyExpansions", () => {
  it("keeps every term within the distance when there are at most 50", () => {
    expect(fuzzyExpansions("emotet", ["emotet", "emotte", "remote", "emote", "motet", "demotes", "totem"], 2)).toEqual(["demotes", "emote", "emotet", "emotte", "motet", "remote"]);
    expect(fuzzyExpansions("abc", ["abd", "abcd", "xbx", "ab"], 1)).toEqual(["ab", "abcd", "abd"]);
  });

  it("keeps the 50 best scores, ties going to the smaller term", () => {
    const letters = [..."abcdefghijklmnopqrstuvwxyz"];
    // "abcd" itself, 50 terms one edit away (score 0.75), and terms two edits away (score 0.5).
    const oneEdit = [...letters.filter((c) => c !== "c").map((c) => `ab${c}d`), ...letters.filter((c) => c !== "b").map((c) => `a${c}cd`)];
    const twoEdits = ["aazd", "bbcz", "zbcz"];
    const out = fuzzyExpansions("abcd", ["abcd", ...oneEdit, ...twoEdits], 2);
    expect(out).toHaveLength(50);
    expect(out).toContain("abcd");
    // The largest one-edit term is the one left out; no two-edit term competes.
    expect(out).not.toContain("azcd");
    for (const t of twoEdits) expect(out).not.toContain(t);
  });
});
