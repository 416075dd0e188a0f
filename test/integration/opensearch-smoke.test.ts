import crypto from "node:crypto";
import { Client } from "@opensearch-project/opensearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A real OpenSearch node (or cluster) started by test/opensearch/start.sh; OPENSEARCH_URL is the
// comma-separated list of node URLs that script prints.
const urls = (process.env.OPENSEARCH_URL ?? "")
  .split(",")
  .map((u) => u.trim())
  .filter(Boolean);

describe.skipIf(!process.env.OPENSEARCH_URL)("OpenSearch smoke (real node)", () => {
  const index = `wb-smoke-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`;
  let client: Client;

  const docs = [
    { id: "1", value: "evil.example.com", category: "Network activity", comment: "Phishing domain used in the spring campaign" },
    { id: "2", value: "198.51.100.7", category: "Network activity", comment: "Command and control server" },
    { id: "3", value: "d41d8cd98f00b204e9800998ecf8427e", category: "Payload delivery", comment: "Dropper attached to phishing mails" },
    { id: "4", value: "Evil.Example.com", category: "Network activity", comment: "Same domain, other case: keyword is exact" },
  ];

  const search = async (q: string): Promise<{ ids: string[]; total: number; relation: string }> => {
    const res = await client.search({
      index,
      body: { query: { query_string: { query: q } }, track_total_hits: true, size: 50, sort: [{ value: "asc" }] },
    });
    expect(res.statusCode).toBe(200);
    const total = res.body.hits.total as { value: number; relation: string };
    return { ids: res.body.hits.hits.map((h) => h._id as string), total: total.value, relation: total.relation };
  };

  beforeAll(async () => {
    client = new Client({ nodes: urls });
    const created = await client.indices.create({
      index,
      body: {
        // One replica when there are several nodes, so a node loss keeps the data.
        settings: { number_of_shards: 1, number_of_replicas: urls.length > 1 ? 1 : 0 },
        mappings: {
          dynamic: "strict",
          properties: {
            value: { type: "keyword" },
            category: { type: "keyword" },
            comment: { type: "text" },
          },
        },
      },
    });
    expect(created.body.acknowledged).toBe(true);
  });

  afterAll(async () => {
    if (!client) return;
    await client.indices.delete({ index }, { ignore: [404] });
    await client.close();
  });

  it("keeps the explicit mapping", async () => {
    const res = await client.indices.getMapping({ index });
    expect(res.body[index].mappings.properties).toEqual({
      value: { type: "keyword" },
      category: { type: "keyword" },
      comment: { type: "text" },
    });
  });

  it("bulk-writes documents with refresh and finds them with query_string", async () => {
    const bulk = await client.bulk({
      refresh: true,
      body: docs.flatMap(({ id, ...doc }) => [{ index: { _index: index, _id: id } }, doc]),
    });
    expect(bulk.body.errors).toBe(false);
    expect(bulk.body.items.map((i) => [i.index?._id, i.index?.status])).toEqual([
      ["1", 201],
      ["2", 201],
      ["3", 201],
      ["4", 201],
    ]);

    // text field: analyzed, case-insensitive
    expect(await search("comment:PHISHING")).toEqual({ ids: ["3", "1"], total: 2, relation: "eq" });
    // keyword field: exact, case-sensitive
    expect(await search('value:"evil.example.com"')).toEqual({ ids: ["1"], total: 1, relation: "eq" });
    // boolean combination over keyword + text
    expect(await search('category:"Network activity" AND NOT comment:phishing')).toEqual({
      ids: ["2", "4"],
      total: 2,
      relation: "eq",
    });
    expect(await search("comment:zebra")).toEqual({ ids: [], total: 0, relation: "eq" });

    const count = await client.count({ index });
    expect(count.body.count).toBe(docs.length);
  });

  it("rejects a document that breaks the strict mapping", async () => {
    const bulk = await client.bulk({
      refresh: true,
      body: [{ index: { _index: index, _id: "bad" } }, { value: "x", unknown_field: 1 }],
    });
    expect(bulk.body.errors).toBe(true);
    expect(bulk.body.items[0].index?.status).toBe(400);
    expect(bulk.body.items[0].index?.error?.type).toBe("strict_dynamic_mapping_exception");
  });

  it("deletes the index", async () => {
    const del = await client.indices.delete({ index });
    expect(del.body.acknowledged).toBe(true);
    const exists = await client.indices.exists({ index });
    expect(exists.body).toBe(false);
  });
});
