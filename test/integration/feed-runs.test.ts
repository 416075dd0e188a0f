/**
 * Feed.runs: a feed's run history in GraphQL (the web UI's feed page). Only that feed's fetch runs,
 * newest first, with counts; another user of the organisation sees the feed but not the runs they
 * did not start (the task runs' rule); a bad page size is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";

let app: TestApp;
let admin: TestUser;
let colleague: TestUser;

const RUNS = `query($id: Int!, $size: Int) { feed(id: $id) { id runs(size: $size) { total items { id status task kwargs result } } } }`;

async function localFeed(name: string, csv: string): Promise<number> {
  const form = new FormData();
  form.append("source_format", "csv");
  form.append("file", new Blob([csv]), `${name}.csv`);
  const up = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
  const key = ((await up.json()) as { key: string }).key;
  const res = await app.http.post("/feeds/", { token: admin.token, json: { name, provider: "test", input_source: "local", url: key, source_format: "csv" } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function runsOf(id: number, token = admin.token, size?: number) {
  const res = await app.http.graphql(RUNS, { id, size }, token);
  return res.body;
}

beforeAll(async () => {
  app = await startTestApp("feed-runs", { ROLE: "all" });
  admin = await loginAdmin(app);
  colleague = await createUser(app, admin, ["feeds:read", "tasks:read"]);
}, 60_000);
afterAll(() => app?.close());

describe("Feed.runs", () => {
  it("lists the feed's own fetch runs, newest first, with their counts", async () => {
    const first = await localFeed("runs-a", "198.51.100.71\n198.51.100.72\n");
    const other = await localFeed("runs-b", "198.51.100.73\n");
    const fetched = await app.http.graphql(`mutation($id: Int!) { fetchFeed(id: $id) { id } }`, { id: first }, admin.token);
    const secondRun = fetched.body.data.fetchFeed.id as string;

    const page = await eventually(async () => {
      const body = await runsOf(first);
      const items = body.data.feed.runs.items as { status: string }[];
      return items.length === 2 && items.every((r) => r.status === "SUCCEEDED") ? body.data.feed.runs : undefined;
    }, "both runs finished", 60_000, 100);
    expect(page.total).toBe(2);
    expect(page.items[0].id).toBe(secondRun);
    for (const run of page.items) {
      expect(run).toMatchObject({ task: "fetch_feed", kwargs: { feed_id: first } });
    }
    expect(page.items[1].result).toMatchObject({ feed_id: first, rows: 2 });

    const b = await runsOf(other);
    expect(b.data.feed.runs.items.map((r: { kwargs: unknown }) => r.kwargs)).toEqual([{ feed_id: other }]);
  });

  it("shows a colleague the feed but not runs they did not start; a bad size is refused", async () => {
    const id = await localFeed("runs-c", "198.51.100.74\n");
    const seen = await runsOf(id, colleague.token);
    expect(seen.errors).toBeUndefined();
    expect(seen.data.feed.runs).toMatchObject({ total: 0, items: [] });
    const bad = await runsOf(id, admin.token, 0);
    expect(bad.errors?.[0]?.extensions?.code).toBe("validation_error");
  });
});
