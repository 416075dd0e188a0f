import { describe, expect, it } from "vitest";
import { expandedFields } from "../../src/indexing/documents.ts";

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
