/**
 * One input contract per write of the identity areas (organisations, roles, users, API keys): a bad
 * value is refused over REST (422 at the snake_case body field) and over GraphQL (validation_error
 * at the argument, under `input` when the mutation takes one), by the same rule, and nothing is written.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("contracts_identity");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const suffix = () => crypto.randomBytes(4).toString("hex");
const sql = async <T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> =>
  (await app.booted.ctx.db.pool.query(text, values)).rows as T[];

type Detail = { loc: (string | number)[]; msg: string };

/** The 422's locations over REST. */
function restLocs(res: { status: number; body: { detail?: Detail[] } }): (string | number)[][] {
  expect(res.status).toBe(422);
  return (res.body.detail ?? []).map((d) => d.loc);
}

/** The validation_error's locations over GraphQL (its first error), and that no data came back. */
async function graphqlLocs(query: string, variables: Record<string, unknown>, token = admin.token): Promise<(string | number)[][]> {
  const res = await app.http.graphql(query, variables, token);
  const ext = res.body.errors?.[0]?.extensions as { code: string; status: number; detail: Detail[] } | undefined;
  expect(ext).toMatchObject({ code: "validation_error", status: 422 });
  expect(res.body.data?.[Object.keys(res.body.data ?? {})[0]] ?? null).toBeNull();
  return ext!.detail.map((d) => d.loc);
}

describe("organisation writes (organisationCreateContract, organisationPatchContract)", () => {
  const CREATE = `mutation($input: OrganisationInput!) { createOrganisation(input: $input) { id } }`;
  const UPDATE = `mutation($id: Int!, $input: OrganisationPatch!) { updateOrganisation(id: $id, input: $input) { id } }`;

  it.each([
    ["a landing page over 2048 characters", { landing_page: "https://x.example/" + "a".repeat(2048) }, { landingPage: "https://x.example/" + "a".repeat(2048) }, "landing_page", "landingPage"],
    ["1001 restricted domains", { restricted_to_domain: Array.from({ length: 1001 }, (_, i) => `d${i}.example`) }, { restrictedToDomain: Array.from({ length: 1001 }, (_, i) => `d${i}.example`) }, "restricted_to_domain", "restrictedToDomain"],
    ["a sector over 255 characters", { sector: "s".repeat(256) }, { sector: "s".repeat(256) }, "sector", "sector"],
    ["an invalid uuid", { uuid: "not-a-uuid" }, { uuid: "not-a-uuid" }, "uuid", "uuid"],
  ])("refuses %s on create, over REST and GraphQL, and creates nothing", async (_label, wire, gql, wireName, gqlName) => {
    const name = `contract-org-${suffix()}`;
    expect(restLocs(await app.http.post("/organisations/", { token: admin.token, json: { name, ...wire } }))).toEqual([["body", wireName]]);
    expect(await graphqlLocs(CREATE, { input: { name, ...gql } })).toEqual([["args", "input", gqlName]]);
    expect(await sql("SELECT 1 FROM organisations WHERE name = $1", [name])).toHaveLength(0);
  });

  it("refuses a blank name on create and update, and changes nothing", async () => {
    expect(restLocs(await app.http.post("/organisations/", { token: admin.token, json: { name: "   " } }))).toEqual([["body", "name"]]);
    expect(await graphqlLocs(CREATE, { input: { name: "   " } })).toEqual([["args", "input", "name"]]);
    const id = await createOrganisation(app, admin);
    const [before] = await sql("SELECT to_jsonb(o) AS r FROM organisations o WHERE id = $1", [id]);
    expect(restLocs(await app.http.patch(`/organisations/${id}`, { token: admin.token, json: { name: " ", nationality: "n".repeat(256) } }))).toEqual(
      expect.arrayContaining([["body", "name"], ["body", "nationality"]]),
    );
    expect(await graphqlLocs(UPDATE, { id, input: { name: "", contacts: "c".repeat(10_001) } })).toEqual(
      expect.arrayContaining([["args", "input", "name"], ["args", "input", "contacts"]]),
    );
    expect(await sql("SELECT to_jsonb(o) AS r FROM organisations o WHERE id = $1", [id])).toEqual([before]);
  });

  it("takes GraphQL's null as REST's: clears a nullable field, leaves a list alone", async () => {
    const created = await app.http.graphql(CREATE, { input: { name: `contract-org-${suffix()}`, sector: "finance", restrictedToDomain: ["a.example"] } }, admin.token);
    const id = created.body.data.createOrganisation.id as number;
    const res = await app.http.graphql(UPDATE, { id, input: { sector: null, restrictedToDomain: null } }, admin.token);
    expect(res.body.errors).toBeUndefined();
    expect(await sql("SELECT sector, restricted_to_domain FROM organisations WHERE id = $1", [id])).toEqual([{ sector: null, restricted_to_domain: ["a.example"] }]);
  });
});

describe("role writes (roleCreateContract, rolePatchContract)", () => {
  const CREATE = `mutation($input: RoleInput!) { createRole(input: $input) { id } }`;
  const UPDATE = `mutation($id: Int!, $input: RolePatch!) { updateRole(id: $id, input: $input) { id } }`;
  const tooMany = Array.from({ length: 501 }, () => "events:read");

  it.each([
    ["501 scopes", { scopes: tooMany }, "scopes"],
    ["an empty scope", { scopes: [""] }, "scopes"],
    ["a name over 100 characters", { name: "r".repeat(101), scopes: [] }, "name"],
  ])("refuses %s on create, over REST and GraphQL, and creates nothing", async (_label, fields, field) => {
    const name = `contract-role-${suffix()}`;
    const body = { name, ...fields };
    const locs = restLocs(await app.http.post("/roles/", { token: admin.token, json: body }));
    expect(locs.every((l) => l[0] === "body" && l[1] === field)).toBe(true);
    const gql = await graphqlLocs(CREATE, { input: body });
    expect(gql.every((l) => l[0] === "args" && l[1] === "input" && l[2] === field)).toBe(true);
    expect(await sql("SELECT 1 FROM roles WHERE name = $1", [body.name])).toHaveLength(0);
  });

  it("refuses a bad patch over REST (default_role) and GraphQL (defaultRole's name), and changes nothing", async () => {
    const id = await createRole(app, admin, ["users:me"]);
    const [before] = await sql("SELECT name, scopes, default_role FROM roles WHERE id = $1", [id]);
    expect(restLocs(await app.http.patch(`/roles/${id}`, { token: admin.token, json: { default_role: "yes" } }))).toEqual([["body", "default_role"]]);
    expect(restLocs(await app.http.patch(`/roles/${id}`, { token: admin.token, json: { scopes: tooMany } }))).toEqual([["body", "scopes"]]);
    expect(await graphqlLocs(UPDATE, { id, input: { name: "  ", scopes: tooMany } })).toEqual(
      expect.arrayContaining([["args", "input", "name"], ["args", "input", "scopes"]]),
    );
    expect(await sql("SELECT name, scopes, default_role FROM roles WHERE id = $1", [id])).toEqual([before]);
  });
});

describe("user writes (userCreateContract, userPatchContract, ownPasswordContract)", () => {
  const CREATE = `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`;
  const UPDATE = `mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }`;
  const OWN = `mutation($c: String!, $p: String!) { changeOwnPassword(currentPassword: $c, password: $p) { id } }`;

  const long = `${"a".repeat(60)}@${"b".repeat(300)}.example`;
  it.each([
    ["a malformed e-mail", { email: "not-an-email" }, { email: "not-an-email" }, "email", "email"],
    ["an e-mail over 320 characters", { email: long }, { email: long }, "email", "email"],
    ["a short password", { password: "short" }, { password: "short" }, "password", "password"],
    ["organisation 0", { org_id: 0 }, { orgId: 0 }, "org_id", "orgId"],
    // GraphQL's Int cannot carry 2^31: its own type check refuses that before any resolver runs.
    ["a role id past PostgreSQL's integer", { role_id: 2_147_483_648 }, null, "role_id", "roleId"],
  ])("refuses %s on create, over REST and GraphQL, and creates nothing", async (_label, wire, gql, wireName, gqlName) => {
    const email = `contract-${suffix()}@example.test`;
    expect(restLocs(await app.http.post("/users/", { token: admin.token, json: { email, org_id: admin.orgId, role_id: 3, ...wire } }))).toEqual([["body", wireName]]);
    if (gql) expect(await graphqlLocs(CREATE, { input: { email, orgId: admin.orgId, roleId: 3, ...gql } })).toEqual([["args", "input", gqlName]]);
    expect(await sql("SELECT 1 FROM users WHERE email = ANY($1)", [[email, "email" in wire ? wire.email.toLowerCase() : email]])).toHaveLength(0);
  });

  it("refuses a bad update over REST and GraphQL, and changes nothing", async () => {
    const user = await createUser(app, admin, ["users:me"]);
    const [before] = await sql("SELECT email, password_hash, org_id, role_id, disabled FROM users WHERE id = $1", [user.id]);
    expect(restLocs(await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { password: "short", disabled: true } }))).toEqual([["body", "password"]]);
    expect(restLocs(await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { email: "x@", role_id: -1 } }))).toEqual(
      expect.arrayContaining([["body", "email"], ["body", "role_id"]]),
    );
    expect(await graphqlLocs(UPDATE, { id: user.id, input: { password: "short", disabled: true } })).toEqual([["args", "input", "password"]]);
    expect(await graphqlLocs(UPDATE, { id: user.id, input: { email: "x@", orgId: 0 } })).toEqual(expect.arrayContaining([["args", "input", "email"], ["args", "input", "orgId"]]));
    expect(await sql("SELECT email, password_hash, org_id, role_id, disabled FROM users WHERE id = $1", [user.id])).toEqual([before]);
  });

  it("refuses a bad own-password change over REST (body) and GraphQL (its arguments: no input), and keeps the password", async () => {
    const user = await createUser(app, admin, ["users:me"]);
    const [before] = await sql("SELECT password_hash FROM users WHERE id = $1", [user.id]);
    expect(restLocs(await app.http.patch("/users/me", { token: user.token, json: { current_password: user.password, password: "short" } }))).toEqual([["body", "password"]]);
    expect(restLocs(await app.http.patch("/users/me", { token: user.token, json: { current_password: "", password: "long enough password" } }))).toEqual([["body", "current_password"]]);
    expect(await graphqlLocs(OWN, { c: user.password, p: "short" }, user.token)).toEqual([["args", "password"]]);
    expect(await graphqlLocs(OWN, { c: "", p: "long enough password" }, user.token)).toEqual([["args", "currentPassword"]]);
    // The service's own check (the current password is wrong) is located the same way.
    expect(await graphqlLocs(OWN, { c: "wrong password!", p: "long enough password" }, user.token)).toEqual([["args", "currentPassword"]]);
    expect(await sql("SELECT password_hash FROM users WHERE id = $1", [user.id])).toEqual([before]);
    expect((await app.http.login(user.email, user.password)).access_token).toEqual(expect.any(String));
  });
});

describe("API key switches (apiKeyToggleContract, apiKeyLockContract, adminApiKeyListContract)", () => {
  it("refuses a non-boolean switch on the owner's and the administrator's routes, and changes nothing", async () => {
    const created = await app.http.post("/api-keys/", { token: admin.token, json: { name: `contract-${suffix()}`, scopes: ["events:read"] } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    for (const disabled of ["true", 1, null]) {
      expect(restLocs(await app.http.patch(`/api-keys/${id}`, { token: admin.token, json: { disabled } }))).toEqual([["body", "disabled"]]);
      // The administrator's hold is `locked` in the service, `disabled` on the wire.
      expect(restLocs(await app.http.patch(`/admin/api-keys/${id}`, { token: admin.token, json: { disabled } }))).toEqual([["body", "disabled"]]);
    }
    // The service's name is not the wire's: unknown there, and the wire's own field is missing.
    expect(restLocs(await app.http.patch(`/admin/api-keys/${id}`, { token: admin.token, json: { locked: true } }))).toEqual(
      expect.arrayContaining([["body", "locked"], ["body", "disabled"]]),
    );
    expect(await sql("SELECT disabled, admin_disabled FROM api_keys WHERE id = $1", [id])).toEqual([{ disabled: false, admin_disabled: false }]);
  });

  it("refuses a user id below 1 in the administrator's list over REST (query) and GraphQL (argument)", async () => {
    expect(restLocs(await app.http.get("/admin/api-keys/?user_id=0", { token: admin.token }))).toEqual([["query", "user_id"]]);
    expect(await graphqlLocs(`{ adminApiKeys(userId: 0) { id } }`, {})).toEqual([["args", "userId"]]);
    const listed = await app.http.graphql(`{ adminApiKeys(userId: ${admin.id}) { id userId } }`, {}, admin.token);
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.adminApiKeys.every((k: { userId: number }) => k.userId === admin.id)).toBe(true);
  });
});
