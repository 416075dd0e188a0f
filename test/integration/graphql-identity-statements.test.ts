/**
 * GraphQL's identity types load through @pothos/plugin-prisma: a page of users with their
 * organisation and role (and those counts of users) is the same small number of SQL statements for
 * 2 users as for 20, the users service still decides which accounts a caller sees, and a count of
 * users says nothing about accounts the caller may not list.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const USERS = 20;
let app: TestApp;
let admin: TestUser;
let orgs: number[];
let roles: number[];

beforeAll(async () => {
  app = await startTestApp("graphql_identity_statements");
  admin = await loginAdmin(app);
  orgs = [await createOrganisation(app, admin), await createOrganisation(app, admin)];
  roles = [await createRole(app, admin, ["users:read", "users:me", "organisations:read", "roles:read"]), await createRole(app, admin, ["events:read", "users:me"])];
  for (let i = 0; i < USERS; i++) await createUser(app, admin, roles[i % 2], orgs[i % 2]);
});
afterAll(() => app?.close());

const PAGE = `query($size: Int!) {
  users(page: 1, size: $size) {
    total
    items { id email orgId roleId disabled organisation { id uuid name userCount } role { id name scopes userCount } }
  }
}`;

type Row = { id: number; email: string; orgId: number; roleId: number; organisation: { id: number; name: string; userCount: number }; role: { id: number; name: string; userCount: number } };

async function usersPage(token: string, size: number): Promise<{ statements: number; total: number; items: Row[] }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(PAGE, { size }, token);
    expect(res.body.errors).toBeUndefined();
    return { statements: counter.count, ...res.body.data.users };
  } finally {
    counter.stop();
  }
}

describe("a GraphQL page of users with their organisation and role", () => {
  it("takes 2 statements for 2 users as for 20: the page with its relations and counts, and its total", async () => {
    const small = await usersPage(admin.token, 2);
    const large = await usersPage(admin.token, USERS);
    expect(small.items).toHaveLength(2);
    expect(large.items).toHaveLength(USERS);
    // The users' own statement carries the plugin's selection (role, organisation, both counts):
    // a resolver that dropped it would add the plugin's fallback read of the relations (3).
    expect(large.statements).toBeLessThanOrEqual(2);
    expect(large.statements).toBe(small.statements);
  });

  it("reads a page of organisations or roles with their user counts in 2 statements", async () => {
    for (const [field, query] of [
      ["organisations", `{ organisations(size: 50) { total items { id name userCount } } }`],
      ["roles", `{ roles(size: 100) { total items { id name userCount } } }`],
    ]) {
      const counter = countStatements();
      const res = await app.http.graphql(query, {}, admin.token);
      counter.stop();
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data[field].items.length).toBeGreaterThanOrEqual(3);
      expect(counter.count).toBeLessThanOrEqual(2);
    }
  });

  it("answers what REST answers, with each user's own organisation and role", async () => {
    const { items } = await usersPage(admin.token, USERS);
    const rest = await app.http.get(`/users/?limit=${USERS}`, { token: admin.token });
    expect(items.map((u) => u.id)).toEqual(rest.body.map((u: { id: number }) => u.id));
    for (const [i, u] of items.entries()) {
      expect(u.organisation).toMatchObject({ id: u.orgId, name: rest.body[i].organisation.name });
      expect(u.role).toMatchObject({ id: u.roleId, name: rest.body[i].role.name });
    }
    // An administrator counts every account.
    const ours = items.find((u) => u.orgId === orgs[0])!;
    expect(ours.organisation.userCount).toBe(USERS / 2);
    expect(items.find((u) => u.roleId === roles[1])!.role.userCount).toBe(USERS / 2);
  });

  it("keeps an organisation's users to itself: lists and counts only the caller's organisation", async () => {
    // A reader in orgs[0] (holding users:read) and one in another organisation with the same role.
    const reader = await createUser(app, admin, roles[0], orgs[0]);
    const outsider = await createUser(app, admin, roles[0], await createOrganisation(app, admin));
    const inside = await usersPage(reader.token, 100);
    expect(inside.items.every((u) => u.orgId === orgs[0])).toBe(true);
    expect(inside.total).toBe(USERS / 2 + 1);
    expect(inside.items[0].organisation.userCount).toBe(USERS / 2 + 1);
    // roles[0] is held by 10 + 2 accounts; the reader may list 11 of them (their organisation's).
    expect(inside.items.find((u) => u.roleId === roles[0])!.role.userCount).toBe(USERS / 2 + 1);

    const outside = await usersPage(outsider.token, 100);
    expect(outside.items.map((u) => u.id)).toEqual([outsider.id]);
    const other = await app.http.graphql(`query($id: Int) { organisation(id: $id) { id userCount } }`, { id: orgs[0] }, outsider.token);
    expect(other.body.errors).toBeUndefined();
    expect(other.body.data.organisation).toEqual({ id: orgs[0], userCount: 0 });
    // roles[0] is held by 12 accounts; the outsider may list one of them: their own.
    const roleSeen = await app.http.graphql(`query($id: Int!) { role(id: $id) { userCount } }`, { id: roles[0] }, outsider.token);
    expect(roleSeen.body.data.role).toEqual({ userCount: 1 });

    // Without users:read, every count is 0.
    const noUsers = await createUser(app, admin, ["organisations:read", "roles:read", "users:me"], orgs[0]);
    const counted = await app.http.graphql(
      `query($org: Int, $role: Int!) { organisation(id: $org) { userCount } role(id: $role) { userCount } roles(size: 100) { items { userCount } } }`,
      { org: orgs[0], role: roles[0] },
      noUsers.token,
    );
    expect(counted.body.errors).toBeUndefined();
    expect(counted.body.data.organisation.userCount).toBe(0);
    expect(counted.body.data.role.userCount).toBe(0);
    expect(counted.body.data.roles.items.every((r: { userCount: number }) => r.userCount === 0)).toBe(true);
  });

  it("never selects the password hash or an API key's token hash", async () => {
    const created = await app.http.post("/api-keys/", { token: admin.token, json: { name: "statements", scopes: ["users:read"] } });
    expect(created.status).toBe(201);
    const statements = await statementsOf(async () => {
      const res = await app.http.graphql(
        `{ me { id email role { id } organisation { id } } users(size: 5) { items { id email } } apiKeys { id name scopes } adminApiKeys { id userId } }`,
        {},
        admin.token,
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.apiKeys.map((k: { id: number }) => k.id)).toContain(created.body.id);
    });
    // Prisma's reads of the two tables (authentication's own SQL is not the plugin's and not quoted so).
    const reads = statements.filter((sql) => /"public"\."(users|api_keys)"/.test(sql));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const sql of reads) expect(sql).not.toMatch(/password_hash|token_hash/);
  });
});

/** The text of every statement this process sends while `run` runs. */
async function statementsOf(run: () => Promise<void>): Promise<string[]> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const seen: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    seen.push(typeof first === "string" ? first : (first?.text ?? ""));
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return seen;
}
