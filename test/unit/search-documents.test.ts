import { describe, expect, it } from "vitest";
import { expandedFields, foldedValues } from "../../src/indexing/documents.ts";

describe("expanded.* of attribute documents", () => {
  it.each([
    ["ip-dst", "198.51.100.7", null, { ip: "198.51.100.7" }],
    ["ip-src", "2001:db8::1", null, { ip: "2001:db8::1" }],
    ["ip-src", "198.51.100.0/24", null, { ip_range: "198.51.100.0/24" }],
    ["ip-dst", "2001:db8::/32", null, { ip_range: "2001:db8::/32" }],
    ["ip-dst|port", "198.51.100.7", "443", { ip: "198.51.100.7" }],
    ["domain|ip", "example.com", "198.51.100.7", { ip: "198.51.100.7" }],
    // Values OpenSearch's ip type would refuse are left out rather than failing the whole document.
    ["ip-dst", "198.51.100.300", null, {}],
    ["ip-dst", "198.51.100.0/33", null, {}],
    ["ip-dst", "198.51.100.0/24/1", null, {}],
    ["ip-dst", "", null, {}],
    ["domain", "198.51.100.7", null, {}],
    ["domain|ip", "example.com", null, {}],
  ])("%s %s|%s", (type, v1, v2, want) => {
    expect(expandedFields(type, v1, v2)).toEqual(want);
  });
});

describe("expanded.value of attribute documents", () => {
  it.each([
    // The value, then each half MISP's value filter compares with (value1, value2), lower-cased and distinct.
    ["Evil.Example|198.51.100.7", "Evil.Example", "198.51.100.7", ["evil.example|198.51.100.7", "evil.example", "198.51.100.7"]],
    ["EVIL.example", "EVIL.example", null, ["evil.example"]],
    ["ÄBC.exe|D41D8CD98F00B204E9800998ECF8427E", "ÄBC.exe", "D41D8CD98F00B204E9800998ECF8427E", ["äbc.exe|d41d8cd98f00b204e9800998ecf8427e", "äbc.exe", "d41d8cd98f00b204e9800998ecf8427e"]],
    ["a|a", "a", "a", ["a|a", "a"]],
    // An empty half is no value; an empty value stays, so the field marks documents of this indexer.
    ["x|", "x", "", ["x|", "x"]],
    ["", "", null, [""]],
  ])("%s", (value, v1, v2, want) => {
    expect(foldedValues(value, v1, v2)).toEqual(want);
  });
});
