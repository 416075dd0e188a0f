/**
 * The scan's hit-by-hit parsing of `_search` bodies (`src/search/opensearch/hits-splitter.ts`) gives
 * what `JSON.parse` of the whole body gives, whatever the documents hold.
 */
import { describe, expect, it } from "vitest";
import { parseSearchResponse } from "../../src/search/opensearch/hits-splitter.ts";

const split = (o: unknown, space?: number) => parseSearchResponse(Buffer.from(JSON.stringify(o, null, space), "utf8"));

function whole(o: { hits?: { hits?: unknown[] } } & Record<string, unknown>) {
  const hits = o.hits?.hits ?? [];
  return { envelope: { ...o, hits: { ...o.hits, hits: [] } }, hits };
}

const tricky = [
  { _id: "a", _source: { value: 'he said "hits": [1, 2] }', tags: [{ name: "x\\" }], hits: { hits: [{ nested: true }] } }, sort: [1, "a"] },
  { _id: "b", _source: { value: "ünïcödé 🚀 \u2028 {[", "hits\"": 1, path: "C:\\temp\\{x}" }, sort: [2, "b"] },
  { _id: "c", _source: {}, sort: [] },
];

describe("parseSearchResponse", () => {
  it("cuts hits.hits into its hits and keeps the rest as the envelope", () => {
    const body = { pit_id: "hits", took: 3, timed_out: false, _shards: { total: 1, hits: { hits: [9] } }, hits: { max_score: null, hits: tricky } };
    for (const space of [undefined, 2]) expect(split(body, space)).toEqual(whole(body));
  });

  it("handles an empty page and a key named hits before the real one", () => {
    const body = { aggregations: { hits: { hits: [{ _id: "not a hit" }] } }, hits: { total: { value: 0 }, hits: [] } };
    expect(split(body)).toEqual(whole(body));
  });

  it("parses a body without hits (an error) whole", () => {
    const body = { error: { type: "search_phase_execution_exception", reason: "hits" }, status: 404 };
    expect(split(body)).toEqual({ envelope: body, hits: [] });
  });

  it("refuses a truncated body as JSON.parse would", () => {
    const text = JSON.stringify({ hits: { hits: tricky } });
    expect(() => parseSearchResponse(Buffer.from(text.slice(0, text.length - 20)))).toThrow(SyntaxError);
  });

  it("gives each hit as its own object (1,000 hits of 1 KB)", () => {
    const hits = Array.from({ length: 1000 }, (_, i) => ({ _id: `id-${i}`, _source: { value: "x".repeat(1000), n: i }, sort: [i, `id-${i}`] }));
    const r = split({ pit_id: "p", hits: { hits } });
    expect(r.hits).toEqual(hits);
    expect(r.envelope).toEqual({ pit_id: "p", hits: { hits: [] } });
  });
});
