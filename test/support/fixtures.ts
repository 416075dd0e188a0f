import crypto from "node:crypto";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestApp } from "./app.ts";

export interface TestUser {
  id: number;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  orgId: number;
  roleId: number;
}

export async function loginAdmin(app: TestApp): Promise<TestUser> {
  const t = await app.http.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  const me = await app.http.get("/users/me", { token: t.access_token });
  return { id: me.body.id, email: ADMIN_EMAIL, password: ADMIN_PASSWORD, token: t.access_token, refreshToken: t.refresh_token, orgId: me.body.org_id, roleId: 1 };
}

/** Creates a role with exactly these scopes (through the API) and returns its id. */
export async function createRole(app: TestApp, admin: TestUser, scopes: string[], name = `role-${crypto.randomBytes(4).toString("hex")}`): Promise<number> {
  const res = await app.http.post("/roles/", { token: admin.token, json: { name, scopes } });
  if (res.status !== 201) throw new Error(`role creation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createOrganisation(app: TestApp, admin: TestUser, name = `org-${crypto.randomBytes(4).toString("hex")}`): Promise<number> {
  const res = await app.http.post("/organisations/", { token: admin.token, json: { name } });
  if (res.status !== 201) throw new Error(`organisation creation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A user with the given role (id, or a list of scopes for a fresh role), logged in. */
export async function createUser(app: TestApp, admin: TestUser, role: number | string[], orgId = admin.orgId): Promise<TestUser> {
  const roleId = typeof role === "number" ? role : await createRole(app, admin, role);
  const email = `user-${crypto.randomBytes(5).toString("hex")}@example.test`;
  const password = `pw-${crypto.randomBytes(8).toString("hex")}`;
  const res = await app.http.post("/users/", { token: admin.token, json: { email, password, role_id: roleId, org_id: orgId } });
  if (res.status !== 201) throw new Error(`user creation failed: ${res.status} ${res.text}`);
  const t = await app.http.login(email, password);
  return { id: res.body.id, email, password, token: t.access_token, refreshToken: t.refresh_token, orgId, roleId };
}
