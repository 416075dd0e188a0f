import { describe, expect, it } from "vitest";
import { parseQueryString } from "../../src/platform/query-string.ts";

const plain = (o: object) => JSON.parse(JSON.stringify(o));

describe("parseQueryString", () => {
  it.each([
    ["", {}],
    ["a=1&b=2", { a: "1", b: "2" }],
    ["q=a+b%20c", { q: "a b c" }],
    ["a=1&a=2&a=3", { a: ["1", "2", "3"] }],
    ["flag&x=", { flag: "", x: "" }],
    ["&&a=1&", { a: "1" }],
    ["=v", { "": "v" }],
    ["a=b=c", { a: "b=c" }],
    ["k%20ey=v%2Bw", { "k ey": "v+w" }],
    ["bad=%zz&half=%E2%82", { bad: "%zz", half: "%E2%82" }],
    ["q=%00x", { q: "\u0000x" }],
    ["e=%F0%9F%98%80", { e: "\u{1F600}" }],
  ])("%s", (input, expected) => {
    expect(plain(parseQueryString(input))).toEqual(expected);
  });

  it("has no prototype: __proto__ and constructor are ordinary keys", () => {
    const q = parseQueryString("__proto__=x&constructor=y");
    expect(Object.getPrototypeOf(q)).toBeNull();
    expect(q.__proto__).toBe("x");
    expect(q.constructor).toBe("y");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
