import { describe, expect, it } from "vitest";
import { wildcardLineStart } from "../../src/search/postgres/compile.ts";

describe("wildcard pre-filter anchored at a line start of search_text", () => {
  it.each([
    ["ukraine*", "(?:^|\\n)ukraine.*"],
    ["comal?gn.pro", "(?:^|\\n)comal.gn\\.pro"],
    // Escaped wildcards and regex syntax are literals.
    ["a\\*b\\?c", "(?:^|\\n)a\\*b\\?c"],
    ["x(y)|^$", "(?:^|\\n)x\\(y\\)\\|\\^\\$"],
    ["trailing\\", "(?:^|\\n)trailing\\\\"],
    ["ünï*", "(?:^|\\n)ünï.*"],
  ])("%s", (pattern, want) => {
    expect(wildcardLineStart(pattern)).toBe(want);
  });

  it("patterns that start with a wildcard are not anchored", () => {
    expect(wildcardLineStart("*.top")).toBeNull();
    expect(wildcardLineStart("?x")).toBeNull();
    expect(wildcardLineStart("")).toBeNull();
  });

  it("the anchored pattern finds values and tokens at any line, never inside one", () => {
    const re = new RegExp(wildcardLineStart("ukraine*")!);
    expect(re.test("ukraine.gov.ua")).toBe(true);
    expect(re.test("evil.com\nukraine.gov.ua")).toBe(true);
    expect(re.test("standwithukraine.org")).toBe(false);
  });
});
