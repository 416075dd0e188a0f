/**
 * GraphQL lists of the intel catalogue (galaxies with their cluster pages, tags) read through
 * @pothos/plugin-prisma: the same number of SQL statements for 2 rows as for 20 (no N+1), and the
 * same rows as REST.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const GALAXIES = 20;
const CLUSTERS = 3;
const stem = `stmt-${crypto.randomBytes(3).toString("hex")}`;
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("graphql_statements_intel");
  admin = await loginAdmin(app);
  const db = new pg.Client({ connectionString: app.databaseUrl });
  await db.connect();
  try {
    for (let g = 0; g < GALAXIES; g++) {
      const { rows } = await db.query<{ id: number }>("INSERT INTO galaxies (uuid, name, type) VALUES ($1, $2, $3) RETURNING id", [
        crypto.randomUUID(),
        `${stem} galaxy ${String(g).padStart(2, "0")}`,
        `${stem}-${g}`,
      ]);
      for (let c = 0; c < CLUSTERS; c++) {
        await db.query("INSERT INTO galaxy_clusters (uuid, galaxy_id, type, value, tag_name, external_ids) VALUES ($1, $2, $3, $4, $5, $6)", [
          crypto.randomUUID(),
          rows[0].id,
          `${stem}-${g}`,
          `cluster ${c} of ${g}`,
          `misp-galaxy:${stem}-${g}="cluster ${c}"`,
          [`T${9000 + g}.${c}`],
        ]);
      }
    }
    for (let t = 0; t < GALAXIES; t++) await db.query("INSERT INTO tags (name) VALUES ($1)", [`${stem}:tag-${String(t).padStart(2, "0")}`]);
  } finally {
    await db.end();
  }
});
afterAll(() => app?.close());

async function counted<T>(query: string, variables: Record<string, unknown>, pick: (data: any) => T): Promise<{ statements: number; data: T }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(query, variables, admin.token);
    expect(res.body.errors).toBeUndefined();
    return { statements: counter.count, data: pick(res.body.data) };
  } finally {
    counter.stop();
  }
}

const GALAXIES_QUERY = `query($f: String!, $size: Int!) {
  galaxies(filter: $f, size: $size) { total items { id name clusters(size: 2) { total items { value tagName externalIds } } } }
}`;

describe("a GraphQL page of galaxies with their cluster pages", () => {
  it("is the same number of statements for 2 galaxies as for 20", async () => {
    const small = await counted(GALAXIES_QUERY, { f: stem, size: 2 }, (d) => d.galaxies);
    const large = await counted(GALAXIES_QUERY, { f: stem, size: GALAXIES }, (d) => d.galaxies);
    expect(small.data.items).toHaveLength(2);
    expect(large.data.items).toHaveLength(GALAXIES);
    expect(large.statements).toBe(small.statements);
    // The page with each galaxy's cluster page and cluster count (one statement), the total; 2 when
    // measured, with room for the credential's lookup when its cache is cold.
    expect(large.statements).toBeLessThanOrEqual(3);
  });

  it("gives each galaxy its own clusters, ordered by value, paged, with their count, as REST", async () => {
    const { data } = await counted(GALAXIES_QUERY, { f: stem, size: GALAXIES }, (d) => d.galaxies);
    expect(data.total).toBe(GALAXIES);
    for (const [g, galaxy] of data.items.entries()) {
      expect(galaxy.name).toBe(`${stem} galaxy ${String(g).padStart(2, "0")}`);
      expect(galaxy.clusters.total).toBe(CLUSTERS);
      expect(galaxy.clusters.items.map((c: { value: string }) => c.value)).toEqual([`cluster 0 of ${g}`, `cluster 1 of ${g}`]);
      expect(galaxy.clusters.items[0].externalIds).toEqual([`T${9000 + g}.0`]);
    }
    const rest = await app.http.get(`/galaxies/${data.items[3].id}/clusters?size=2`, { token: admin.token });
    expect(rest.body.items.map((c: { value: string }) => c.value)).toEqual(data.items[3].clusters.items.map((c: { value: string }) => c.value));
    const page2 = await counted(`query($id: Int) { galaxy(id: $id) { clusters(page: 2, size: 2) { total pages items { value } } } }`, { id: data.items[3].id }, (d) => d.galaxy.clusters);
    expect(page2.data).toEqual({ total: CLUSTERS, pages: 2, items: [{ value: "cluster 2 of 3" }] });
  });

  it("filters a galaxy's clusters by an external id's part too (the service's SQL)", async () => {
    const { data } = await counted(
      `query($f: String!) { galaxies(filter: $f, size: 1) { items { clusters(filter: "9004.1") { total items { value } } } } }`,
      { f: `${stem}-4` },
      (d) => d.galaxies.items[0].clusters,
    );
    expect(data).toEqual({ total: 1, items: [{ value: "cluster 1 of 4" }] });
  });
});

describe("a GraphQL page of tags", () => {
  it("is the same number of statements for 2 tags as for 20, ordered by name as REST", async () => {
    const query = `query($f: String!, $size: Int!) { tags(filter: $f, size: $size) { total items { id name colour } } }`;
    const small = await counted(query, { f: stem, size: 2 }, (d) => d.tags);
    const large = await counted(query, { f: stem, size: GALAXIES }, (d) => d.tags);
    expect(large.data.items).toHaveLength(GALAXIES);
    expect(large.statements).toBe(small.statements);
    const rest = await app.http.get(`/tags/?filter=${stem}&size=${GALAXIES}`, { token: admin.token });
    expect(large.data.items.map((t: { name: string }) => t.name)).toEqual(rest.body.items.map((t: { name: string }) => t.name));
  });
});
