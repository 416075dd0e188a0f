/**
 * Warninglists over MCP with the SDK's own client: the tool check_warninglists (the matcher attribute
 * writes use, every enabled list or those of one attribute type, at most 1,000 values) and the
 * resource workbench://warninglists (the enabled lists), on the real lists of ../shared/data, both
 * refused without warninglists:read, and hostile arguments answered as tool errors.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { connectMcp, toolOk as ok, toolRefused as refused } from "../support/mcp-client.ts";
import { sharedPath } from "../support/shared-data.ts";

const DNS_V4 = "List of known IPv4 public DNS resolvers";
const SHORTENERS = "List of known URL Shorteners domains";
const GOOGLE = "List of known google domains";

let app: TestApp;
let admin: TestUser;
let reader: Client;
const clients: Client[] = [];
const ids: Record<string, number> = {};

const mcpClient = async (scopes: string[]) => {
  const user = await createUser(app, admin, [...scopes, "mcp:*"]);
  const minted = await app.http.get("/mcp/config", { token: user.token });
  expect(minted.status, minted.text).toBe(200);
  return connectMcp(app.url, minted.body.token, clients);
};
const check = async (values: string[], type?: string) => {
  const out = await ok(reader, "check_warninglists", { values, ...(type ? { type } : {}) });
  return Object.fromEntries((out.results as { value: string; warninglists: { name: string }[] }[]).map((r) => [r.value, r.warninglists.map((w) => w.name)]));
};

beforeAll(async () => {
  app = await startTestApp("mcp-warninglists", { WARNINGLISTS_SOURCE: sharedPath("misp-warninglists") });
  admin = await loginAdmin(app);
  expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
  const rows = (await app.booted.ctx.db.pool.query<{ id: number; name: string }>("SELECT id, name FROM warninglists WHERE name = ANY($1)", [[DNS_V4, SHORTENERS, GOOGLE]])).rows;
  for (const r of rows) ids[r.name] = r.id;
  for (const name of [DNS_V4, SHORTENERS]) {
    expect((await app.http.patch(`/warninglists/${ids[name]}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
  }
  reader = await mcpClient(["warninglists:read", "events:read", "attributes:read"]);
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await app?.close();
});

describe("check_warninglists", () => {
  it("names the enabled lists each value is on, in the order given; a disabled list is never named", async () => {
    const values = ["8.8.8.8", "HTTPS://Bit.ly/3xYz", "www.google.com", "198.51.100.7", "1.1.1.1|53"];
    const out = await ok(reader, "check_warninglists", { values });
    expect(out.listed).toBe(2);
    expect(out.results.map((r: { value: string }) => r.value)).toEqual(values);
    expect(out.results[0].warninglists).toEqual([{ id: ids[DNS_V4], name: DNS_V4 }]);
    // Without a type every list applies and the value is matched whole: a composite value needs its type.
    expect(await check(values)).toEqual({ "8.8.8.8": [DNS_V4], "HTTPS://Bit.ly/3xYz": [SHORTENERS], "www.google.com": [], "198.51.100.7": [], "1.1.1.1|53": [] });
    expect(await check(["1.1.1.1|53"], "ip-dst|port")).toEqual({ "1.1.1.1|53": [DNS_V4] });
    // A type keeps to the lists that apply to it, as attribute writes do (the shorteners list is not for ip-dst).
    expect(await check(["https://bit.ly/3xYz"], "ip-dst")).toEqual({ "https://bit.ly/3xYz": [] });
    expect(await check(["https://bit.ly/3xYz"], "url")).toEqual({ "https://bit.ly/3xYz": [SHORTENERS] });
  });

  it("answers what an attribute write stores for the same value and type", async () => {
    const event = (await app.http.post("/events/", { token: admin.token, json: { info: "mcp warninglists", distribution: 0 } })).body.uuid;
    for (const [type, value] of [["ip-src", "9.9.9.9"], ["domain", "goo.gl"], ["ip-dst|port", "149.112.112.112|853"], ["url", "https://example.org/x"]]) {
      const written = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: event, type, value } });
      expect(written.status, written.text).toBe(201);
      expect((await check([value], type))[value], `${type} ${value}`).toEqual(written.body.warnings.map((w: { name: string }) => w.name));
    }
    expect((await check(["goo.gl"], "domain"))["goo.gl"]).toEqual([SHORTENERS]);
  });

  it("takes 1,000 values and refuses more, none, a NUL, an empty value or an unknown type without a crash", async () => {
    const many = Array.from({ length: 1000 }, (_, i) => (i % 2 ? `host${i}.example.org` : `host${i}.bit.ly`));
    const started = performance.now();
    const out = await ok(reader, "check_warninglists", { values: many });
    console.log(`check_warninglists over MCP, 1,000 values: ${Math.round(performance.now() - started)} ms`);
    expect(out.results).toHaveLength(1000);
    expect(out.listed).toBe(500);
    expect(out.results[998]).toEqual({ value: "host998.bit.ly", warninglists: [{ id: ids[SHORTENERS], name: SHORTENERS }] });
    for (const args of [{ values: [...many, "x"] }, { values: [] }, { values: ["a\u0000b"] }, { values: [""] }, { values: ["8.8.8.8"], type: "no-such-type" }, { values: "8.8.8.8" }, {}]) {
      expect(await refused(reader, "check_warninglists", args), JSON.stringify(args).slice(0, 80)).toMatch(/validation_error|Invalid|-32602/);
    }
  });

  it("is refused without warninglists:read in the role", async () => {
    const narrow = await mcpClient(["events:read", "attributes:read"]);
    expect(await refused(narrow, "check_warninglists", { values: ["8.8.8.8"] })).toMatch(/insufficient_scope/);
  });
});

describe("the warninglists resource", () => {
  it("lists the enabled warninglists with name, type, entry count and attribute types, and is refused without warninglists:read", async () => {
    expect((await reader.listResources()).resources.map((r) => r.uri)).toContain("workbench://warninglists");
    const [content] = (await reader.readResource({ uri: "workbench://warninglists" })).contents;
    const body = JSON.parse("text" in content ? content.text : "null");
    const stored = (await app.booted.ctx.db.pool.query("SELECT id, name, type, entry_count, matching_attributes FROM warninglists WHERE enabled ORDER BY name")).rows;
    expect(body.total).toBe(2);
    expect(body.warninglists.map(({ description: _, ...l }: Record<string, unknown>) => l)).toEqual(stored);
    expect(body.warninglists.find((l: { name: string }) => l.name === DNS_V4)).toMatchObject({ type: "cidr", matching_attributes: expect.arrayContaining(["ip-src", "ip-dst"]) });
    const narrow = await mcpClient(["events:read"]);
    await expect(narrow.readResource({ uri: "workbench://warninglists" })).rejects.toThrow(/insufficient_scope/);
  });
});
