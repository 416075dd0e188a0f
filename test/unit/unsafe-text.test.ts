import { describe, expect, it } from "vitest";
import { findUnsafeText, unsafeTextReason } from "../../src/platform/unsafe-text.ts";

describe("unsafeTextReason", () => {
  it.each([
    ["plain text", "hello", null],
    ["a surrogate pair (an emoji)", "a😀b", null],
    ["a NUL", "a\u0000b", "NUL"],
    ["a lone high surrogate", "a\ud800b", "surrogate"],
    ["a lone high surrogate at the end", "a\ud800", "surrogate"],
    ["a lone low surrogate", "\udc00a", "surrogate"],
    ["two high surrogates", "\ud800\ud800\udc00", "surrogate"],
  ])("%s", (_label, text, word) => {
    const why = unsafeTextReason(text);
    if (word === null) expect(why).toBeNull();
    else expect(why).toContain(word);
  });
});

describe("findUnsafeText", () => {
  it("locates bad values and bad field names under the given root", () => {
    const body = { ok: "x", list: ["fine", { deep: "a\u0000" }], "k\u0000": 1, nested: { pair: "😀", lone: "\udfff" } };
    expect(findUnsafeText(body, ["body"]).map((i) => i.loc)).toEqual(
      expect.arrayContaining([["body", "list", 1, "deep"], ["body", "k\u0000"], ["body", "nested", "lone"]]),
    );
    expect(findUnsafeText(body, ["body"])).toHaveLength(3);
    expect(findUnsafeText("a\u0000", ["path", "id"])).toEqual([{ type: "value_error", loc: ["path", "id"], msg: expect.stringContaining("NUL") }]);
  });

  it("reads null-prototype dictionaries (query strings) but never class instances (streams, uploads)", () => {
    const query = Object.assign(Object.create(null), { filter: "a\u0000" });
    expect(findUnsafeText(query, ["query"]).map((i) => i.loc)).toEqual([["query", "filter"]]);
    class Upload {
      name = "a\u0000";
    }
    expect(findUnsafeText({ file: new Upload(), buf: Buffer.from("a\u0000") }, ["variables"])).toEqual([]);
  });

  it("walks a body nested 100 000 levels deep in one pass and stops at 20 issues", () => {
    let deep: unknown = "a\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const started = Date.now();
    const [issue] = findUnsafeText(deep, ["body"]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(issue.loc).toHaveLength(100_001);
    expect(findUnsafeText(Array.from({ length: 1000 }, () => "\u0000"), ["body"])).toHaveLength(20);
  });
});
