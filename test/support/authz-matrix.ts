import crypto from "node:crypto";
import { routeTable } from "../../rest-shim/index.ts";
import type { TestApp } from "./app.ts";
import { createRole, createUser, loginAdmin, type TestUser } from "./fixtures.ts";

/**
 * The authorization matrix: for every REST route, what each kind of caller gets.
 * - anonymous: no Authorization header
 * - wrongScope: an API key of the owner that holds only `tags:read`
 * - otherUser: another user with the same role as the owner (role 3, "user")
 * - owner: the user who owns the resource (role 3)
 * - admin: the administrator (role 1, `*`)
 */
export const ACTORS = ["anonymous", "wrongScope", "otherUser", "owner", "admin"] as const;
export type Actor = (typeof ACTORS)[number];

export interface MatrixRequest {
  path: string;
  json?: unknown;
  form?: Record<string, string>;
  /** Overrides the actor's credential (e.g. a fresh login for logout). */
  authorization?: string;
}

export interface MatrixWorld {
  app: TestApp;
  admin: TestUser;
  owner: TestUser;
  otherUser: TestUser;
  wrongScopeKey: string;
  unique(prefix: string): string;
  /** A throwaway user (role 3) for routes that modify or delete one. */
  throwawayUser(): Promise<TestUser>;
  throwawayRole(): Promise<number>;
  apiKeyOf(user: TestUser, scopes?: string[]): Promise<number>;
}

export interface MatrixCase {
  /** `METHOD /path` exactly as in the route table. */
  route: string;
  request(actor: Actor, world: MatrixWorld): MatrixRequest | Promise<MatrixRequest>;
  expect: Record<Actor, number>;
}

/** Shorthand for the common shapes. */
export const expectFor = {
  adminOnly: (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 403, owner: 403, admin: ok }),
  anyUser: (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: ok, owner: ok, admin: ok }),
  ownerOnly: (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: 404 }),
};

export async function buildWorld(app: TestApp): Promise<MatrixWorld> {
  const admin = await loginAdmin(app);
  const owner = await createUser(app, admin, 3);
  const otherUser = await createUser(app, admin, 3);
  const keyRes = await app.http.post("/api-keys/", { token: owner.token, json: { name: "matrix-wrong-scope", scopes: ["tags:read"] } });
  if (keyRes.status !== 201) throw new Error(`matrix key: ${keyRes.text}`);
  const world: MatrixWorld = {
    app,
    admin,
    owner,
    otherUser,
    wrongScopeKey: keyRes.body.token,
    unique: (prefix) => `${prefix}-${crypto.randomBytes(4).toString("hex")}`,
    throwawayUser: () => createUser(app, admin, 3),
    throwawayRole: () => createRole(app, admin, ["users:me"]),
    async apiKeyOf(user, scopes = ["users:me"]) {
      const res = await app.http.post("/api-keys/", { token: user.token, json: { name: world.unique("k"), scopes } });
      if (res.status !== 201) throw new Error(`apiKeyOf: ${res.text}`);
      return res.body.id;
    },
  };
  return world;
}

export function credentialOf(actor: Actor, world: MatrixWorld): string | undefined {
  switch (actor) {
    case "anonymous":
      return undefined;
    case "wrongScope":
      return `Bearer ${world.wrongScopeKey}`;
    default:
      return `Bearer ${world[actor].token}`;
  }
}

export async function runCase(c: MatrixCase, actor: Actor, world: MatrixWorld): Promise<{ status: number; text: string }> {
  const [method] = c.route.split(" ");
  const req = await c.request(actor, world);
  const authorization = req.authorization ?? credentialOf(actor, world);
  const res = await world.app.http.request(method, req.path, { authorization, json: req.json, form: req.form });
  return { status: res.status, text: res.text };
}

/** Routes of the table that no case covers: a new route must come with its matrix row. */
export function uncoveredRoutes(cases: MatrixCase[]): string[] {
  const covered = new Set(cases.map((c) => c.route));
  return routeTable.map((r) => `${r.method} ${r.path}`).filter((r) => !covered.has(r));
}
