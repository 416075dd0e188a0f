import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import type { HttpResult, RequestOptions } from "../support/http.ts";

/**
 * Issue 3: the GraphQL twins of the API-key and audit-log routes (`adminApiKeys`,
 * `setApiKeyDisabled`, `deleteApiKey`, `adminDeleteApiKey`, `auditLogs`) answer what their REST
 * route answers and obey the same rules. Each scenario runs once through REST and once through
 * GraphQL, on twin keys in the same state, and the two transcripts must be equal: values compared
 * in REST's wire form, errors as GraphQL maps them (`extensions.code`, `extensions.status`,
 * `extensions.detail` against the REST body's `code`, HTTP status and `detail`).
 */
let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  app = await startTestApp("apikeys-gql");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  other = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const auditActions = async (keyId: number) =>
  (await sql("SELECT action FROM audit_logs WHERE resource_type = 'api_key' AND resource_id = $1 AND action <> 'api_key.authenticated' ORDER BY id", [keyId])).rows.map(
    (r) => r.action as string,
  );
const keyRow = async (keyId: number) => (await sql("SELECT disabled, admin_disabled FROM api_keys WHERE id = $1", [keyId])).rows[0] ?? null;

type Auth = Pick<RequestOptions, "token" | "authorization">;
type Outcome = { ok: true; value: unknown } | { ok: false; status: number; code: string; detail: unknown };

const KEY_FIELDS = "id userId name comment scopes expiresAt disabled adminDisabled createdAt lastUsedAt";
const AUDIT_FIELDS = "id createdAt actorUserId actorEmail actorType actorCredentialId resourceType resourceId action ipAddress userAgent metadata";

/** GraphQL field names to REST wire names (top level only: audit metadata keeps its own keys). */
const snakeKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));

function restOutcome(res: HttpResult): Outcome {
  if (res.status < 300) return { ok: true, value: res.status === 204 ? null : res.body };
  return { ok: false, status: res.status, code: res.body?.code, detail: res.body?.detail };
}

function gqlOutcome(res: HttpResult, field: string, toRest: (v: any) => unknown): Outcome {
  // Requests without a valid credential are refused before execution, with HTTP 401 (src/graphql/anonymous-guard.ts).
  expect(res.status, res.text).toBe(res.body?.errors?.[0]?.extensions?.code === "unauthenticated" ? 401 : 200);
  const err = res.body.errors?.[0];
  if (err) {
    expect(res.body.data?.[field] ?? null, "no data beside an error").toBeNull();
    return { ok: false, status: err.extensions?.status, code: err.extensions?.code, detail: err.extensions?.detail ?? err.message };
  }
  return { ok: true, value: toRest(res.body.data[field]) };
}

const gql = (auth: Auth, query: string, variables: Record<string, unknown> = {}) => app.http.request("POST", "/graphql", { ...auth, json: { query, variables } });

/** One operation, through either layer, as the same Outcome. */
interface Layer {
  name: "REST" | "GraphQL";
  adminList(auth: Auth, userId?: number): Promise<Outcome>;
  setDisabled(auth: Auth, id: number, disabled: boolean): Promise<Outcome>;
  deleteOwn(auth: Auth, id: number): Promise<Outcome>;
  adminDelete(auth: Auth, id: number): Promise<Outcome>;
}

const rest: Layer = {
  name: "REST",
  adminList: async (auth, userId) => restOutcome(await app.http.get(`/admin/api-keys/${userId === undefined ? "" : `?user_id=${userId}`}`, auth)),
  setDisabled: async (auth, id, disabled) => restOutcome(await app.http.patch(`/api-keys/${id}`, { ...auth, json: { disabled } })),
  deleteOwn: async (auth, id) => restOutcome(await app.http.delete(`/api-keys/${id}`, auth)),
  adminDelete: async (auth, id) => restOutcome(await app.http.delete(`/admin/api-keys/${id}`, auth)),
};

const graphql: Layer = {
  name: "GraphQL",
  adminList: async (auth, userId) =>
    gqlOutcome(await gql(auth, `query ($u: Int) { adminApiKeys(userId: $u) { ${KEY_FIELDS} } }`, { u: userId ?? null }), "adminApiKeys", (l: any[]) => l.map(snakeKeys)),
  setDisabled: async (auth, id, disabled) =>
    gqlOutcome(await gql(auth, `mutation ($id: Int!, $d: Boolean!) { setApiKeyDisabled(id: $id, disabled: $d) { ${KEY_FIELDS} } }`, { id, d: disabled }), "setApiKeyDisabled", snakeKeys),
  // REST answers 204 with no body, GraphQL `true`: both are "done".
  deleteOwn: async (auth, id) =>
    gqlOutcome(await gql(auth, `mutation ($id: Int!) { deleteApiKey(id: $id) }`, { id }), "deleteApiKey", (v) => (expect(v).toBe(true), null)),
  adminDelete: async (auth, id) =>
    gqlOutcome(await gql(auth, `mutation ($id: Int!) { adminDeleteApiKey(id: $id) }`, { id }), "adminDeleteApiKey", (v) => (expect(v).toBe(true), null)),
};

async function mintKey(user: TestUser, scopes = ["users:me", "api_keys:read"]) {
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: `key-${crypto.randomBytes(3).toString("hex")}`, comment: "twin", scopes } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; token: string };
}

const whoAmI = async (key: string) => (await app.http.get("/users/me", { authorization: key })).status;

/** What differs between twin keys by construction; everything else must be equal. */
const withoutIdentity = (o: Outcome): Outcome => {
  if (!o.ok || o.value === null || typeof o.value !== "object") return o;
  const { id: _id, name: _name, created_at: _c, last_used_at: _l, ...rest } = o.value as Record<string, unknown>;
  return { ok: true, value: rest };
};

const JWT = (u: TestUser): Auth => ({ token: u.token });

describe("adminApiKeys and GET /admin/api-keys/", () => {
  it("list the same keys in the same order, with the same fields, filtered or not", async () => {
    await mintKey(owner);
    await mintKey(other);
    await mintKey(other);
    for (const userId of [undefined, other.id, owner.id, 999_999]) {
      const r = await rest.adminList(JWT(admin), userId);
      const g = await graphql.adminList(JWT(admin), userId);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(g, `user_id=${userId}`).toEqual(r);
      if (userId === 999_999) expect(r).toEqual({ ok: true, value: [] });
      if (userId === other.id) expect((r as { value: { user_id: number }[] }).value.map((k) => k.user_id)).toEqual([other.id, other.id]);
    }
    const listed = JSON.stringify((await rest.adminList(JWT(admin))) as object);
    expect(listed).not.toMatch(/token|hash/);
  });

  it("answer the same to an administrator's key, and refuse the same callers with the same errors", async () => {
    const adminKey = await mintKey(admin, ["*"]);
    const narrowAdminKey = await mintKey(admin, ["api_keys:read"]);
    const cases: [string, Auth, number][] = [
      ["an administrator's * key", { authorization: adminKey.token }, 200],
      ["an administrator's key without api_keys:admin", { authorization: `Bearer ${narrowAdminKey.token}` }, 403],
      ["a user's token", JWT(owner), 403],
      ["anonymous", {}, 401],
      ["a tampered token", { token: `${owner.token}x` }, 401],
    ];
    for (const [label, auth, status] of cases) {
      const r = await rest.adminList(auth);
      const g = await graphql.adminList(auth);
      expect(g, label).toEqual(r);
      expect(r.ok ? 200 : r.status, label).toBe(status);
      if (status === 403) expect(r).toMatchObject({ code: "insufficient_scope" });
    }
  });
});

describe("setApiKeyDisabled and PATCH /api-keys/{id}", () => {
  /** The owner's life cycle of one key, spec 3.2, including an administrator's hold. */
  async function scenario(layer: Layer) {
    const key = await mintKey(owner);
    const t: Record<string, Outcome | unknown> = {};
    t.disable = withoutIdentity(await layer.setDisabled(JWT(owner), key.id, true));
    t.authWhileDisabled = await whoAmI(key.token);
    t.disableAgain = withoutIdentity(await layer.setDisabled(JWT(owner), key.id, true));
    t.enable = withoutIdentity(await layer.setDisabled(JWT(owner), key.id, false));
    t.authWhileEnabled = await whoAmI(key.token);
    t.byAnotherUser = await layer.setDisabled(JWT(other), key.id, true);
    t.byReadOnlyScope = await layer.setDisabled({ authorization: key.token }, key.id, true);
    t.unknownKey = await layer.setDisabled(JWT(owner), 999_999, true);
    t.anonymous = await layer.setDisabled({}, key.id, true);
    // Locked by an administrator: the owner can neither re-enable nor change it.
    expect((await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    t.enableWhileLocked = await layer.setDisabled(JWT(owner), key.id, false);
    t.disableWhileLocked = await layer.setDisabled(JWT(owner), key.id, true);
    t.authWhileLocked = await whoAmI(key.token);
    t.rowWhileLocked = await keyRow(key.id);
    expect((await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: false } })).status).toBe(200);
    t.enableAfterUnlock = withoutIdentity(await layer.setDisabled(JWT(owner), key.id, false));
    t.audit = await auditActions(key.id);

    // The rules, whatever the layer.
    expect(t.disable).toMatchObject({ ok: true, value: { disabled: true, admin_disabled: false, user_id: owner.id } });
    expect(t.authWhileDisabled).toBe(401);
    expect(t.authWhileEnabled).toBe(200);
    expect(t.byAnotherUser).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.byReadOnlyScope).toMatchObject({ ok: false, status: 403, code: "insufficient_scope" });
    expect(t.unknownKey).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.anonymous).toMatchObject({ ok: false, status: 401, code: "unauthenticated" });
    expect(t.enableWhileLocked).toMatchObject({ ok: false, status: 409, code: "conflict" });
    expect(t.disableWhileLocked).toMatchObject({ ok: false, status: 409, code: "conflict" });
    expect(t.authWhileLocked).toBe(401);
    expect(t.rowWhileLocked).toEqual({ disabled: false, admin_disabled: true });
    expect(t.enableAfterUnlock).toMatchObject({ ok: true, value: { disabled: false, admin_disabled: false } });
    // Audited once per change; refused and repeated calls write nothing.
    expect(t.audit).toEqual(["api_key.created", "api_key.disabled", "api_key.enabled", "api_key.admin_locked", "api_key.admin_unlocked"]);
    return { key, t };
  }

  it("answer the same and obey the same rules (owner only, audited on change, no re-enable while admin-locked)", async () => {
    const r = await scenario(rest);
    const g = await scenario(graphql);
    expect(g.t).toEqual(r.t);
  });

  it("returns the key as the REST list shows it", async () => {
    const key = await mintKey(owner);
    const g = await graphql.setDisabled(JWT(owner), key.id, true);
    const listed = (await app.http.get("/api-keys/", { token: owner.token })).body.find((k: { id: number }) => k.id === key.id);
    expect(g).toEqual({ ok: true, value: listed });
  });
});

describe("deleteApiKey and DELETE /api-keys/{id}", () => {
  async function scenario(layer: Layer) {
    const key = await mintKey(owner);
    const locked = await mintKey(owner);
    const t: Record<string, unknown> = {};
    t.byAnotherUser = await layer.deleteOwn(JWT(other), key.id);
    t.byReadOnlyScope = await layer.deleteOwn({ authorization: key.token }, key.id);
    t.byReadOnlyRole = await layer.deleteOwn(JWT(readOnly), key.id);
    t.stillThere = (await keyRow(key.id)) !== null;
    t.remove = await layer.deleteOwn(JWT(owner), key.id);
    t.authAfter = await whoAmI(key.token);
    t.removeAgain = await layer.deleteOwn(JWT(owner), key.id);
    t.audit = await auditActions(key.id);
    expect((await app.http.patch(`/admin/api-keys/${locked.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    t.removeLocked = await layer.deleteOwn(JWT(owner), locked.id);
    t.lockedStillThere = await keyRow(locked.id);

    expect(t.byAnotherUser).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.byReadOnlyScope).toMatchObject({ ok: false, status: 403, code: "insufficient_scope" });
    expect(t.byReadOnlyRole).toMatchObject({ ok: false, status: 403, code: "insufficient_scope" });
    expect(t.stillThere).toBe(true);
    expect(t.remove).toEqual({ ok: true, value: null });
    expect(t.authAfter).toBe(401);
    expect(t.removeAgain).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.audit).toEqual(["api_key.created", "api_key.deleted"]);
    expect(t.removeLocked).toMatchObject({ ok: false, status: 409, code: "conflict" });
    expect(t.lockedStillThere).toEqual({ disabled: false, admin_disabled: true });
    return t;
  }

  let readOnly: TestUser;
  beforeAll(async () => {
    readOnly = await createUser(app, admin, 4);
  });

  it("answer the same and obey the same rules (owner only, refused while admin-locked, irreversible)", async () => {
    const r = await scenario(rest);
    const g = await scenario(graphql);
    expect(g).toEqual(r);
  });
});

describe("adminDeleteApiKey and DELETE /admin/api-keys/{id}", () => {
  async function scenario(layer: Layer) {
    const othersKey = await mintKey(owner);
    const lockedKey = await mintKey(owner);
    const ownKey = await mintKey(admin);
    const t: Record<string, unknown> = {};
    t.byTheOwner = await layer.adminDelete(JWT(owner), othersKey.id);
    t.anonymous = await layer.adminDelete({}, othersKey.id);
    t.stillThere = (await keyRow(othersKey.id)) !== null;
    t.othersKey = await layer.adminDelete(JWT(admin), othersKey.id);
    t.authAfter = await whoAmI(othersKey.token);
    t.again = await layer.adminDelete(JWT(admin), othersKey.id);
    expect((await app.http.patch(`/admin/api-keys/${lockedKey.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    t.lockedKey = await layer.adminDelete(JWT(admin), lockedKey.id);
    t.ownKey = await layer.adminDelete(JWT(admin), ownKey.id);
    t.unknown = await layer.adminDelete(JWT(admin), 999_999);
    const audits = async (id: number) =>
      (await sql("SELECT action, actor_user_id, metadata->'target_user_id' AS target FROM audit_logs WHERE resource_id = $1 AND action LIKE 'api_key.%deleted' ORDER BY id", [id])).rows;
    t.auditOthers = await audits(othersKey.id);
    t.auditLocked = await audits(lockedKey.id);
    t.auditOwn = await audits(ownKey.id);
    t.left = await Promise.all([othersKey, lockedKey, ownKey].map((k) => keyRow(k.id)));

    expect(t.byTheOwner).toMatchObject({ ok: false, status: 403, code: "insufficient_scope" });
    expect(t.anonymous).toMatchObject({ ok: false, status: 401, code: "unauthenticated" });
    expect(t.stillThere).toBe(true);
    expect(t.othersKey).toEqual({ ok: true, value: null });
    expect(t.authAfter).toBe(401);
    expect(t.again).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.lockedKey).toEqual({ ok: true, value: null });
    expect(t.ownKey).toEqual({ ok: true, value: null });
    expect(t.unknown).toMatchObject({ ok: false, status: 404, code: "not_found" });
    expect(t.auditOthers).toEqual([{ action: "api_key.admin_deleted", actor_user_id: admin.id, target: owner.id }]);
    expect(t.auditLocked).toEqual([{ action: "api_key.admin_deleted", actor_user_id: admin.id, target: owner.id }]);
    expect(t.auditOwn).toEqual([{ action: "api_key.deleted", actor_user_id: admin.id, target: admin.id }]);
    expect(t.left).toEqual([null, null, null]);
    return t;
  }

  it("answer the same and obey the same rules (administrators only, any key, admin_deleted unless their own)", async () => {
    const r = await scenario(rest);
    const g = await scenario(graphql);
    expect(g).toEqual(r);
  });
});

describe("auditLogs and GET /admin/audit-logs/", () => {
  const auditPage = async (auth: Auth, restQuery: string, args: Record<string, unknown>) => {
    const r = restOutcome(await app.http.get(`/admin/audit-logs/?${restQuery}`, auth));
    const decl = Object.keys(args).map((k) => `$${k}: ${ARG_TYPES[k]}`).join(", ");
    const pass = Object.keys(args).map((k) => `${k}: $${k}`).join(", ");
    const query = `query${decl ? ` (${decl})` : ""} { auditLogs${pass ? `(${pass})` : ""} { total page size pages items { ${AUDIT_FIELDS} } } }`;
    const g = gqlOutcome(await gql(auth, query, args), "auditLogs", (p) => ({ ...p, items: p.items.map(snakeKeys) }));
    return { r, g };
  };
  const ARG_TYPES: Record<string, string> = {
    page: "Int", size: "Int", action: "String", actorUserId: "Int", actorType: "AuditActorType", resourceType: "String", resourceId: "Int", dateFrom: "DateTime", dateTo: "DateTime",
  };

  it("answer the same page for the same filters", async () => {
    const key = await mintKey(owner, ["users:me", "api_keys:update"]);
    expect(await whoAmI(key.token)).toBe(200);
    await app.http.patch(`/api-keys/${key.id}`, { authorization: key.token, json: { disabled: false } });
    await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: true } });
    const from = (await sql("SELECT min(created_at) AS t FROM audit_logs WHERE resource_id = $1 AND resource_type = 'api_key'", [key.id])).rows[0].t as Date;
    const to = new Date(Date.now() + 1000);
    const cases: [string, Record<string, unknown>][] = [
      ["", {}],
      ["page=2&size=3", { page: 2, size: 3 }],
      [`action=API_KEY.&actor_user_id=${owner.id}&size=100`, { action: "API_KEY.", actorUserId: owner.id, size: 100 }],
      ["actor_type=api_key", { actorType: "API_KEY" }],
      [`resource_type=api_key&resource_id=${key.id}`, { resourceType: "api_key", resourceId: key.id }],
      [`date_from=${encodeURIComponent(from.toISOString())}&date_to=${encodeURIComponent(to.toISOString())}&size=2`, { dateFrom: from.toISOString(), dateTo: to.toISOString(), size: 2 }],
      [`date_from=${encodeURIComponent(to.toISOString())}`, { dateFrom: to.toISOString() }],
      ["page=99", { page: 99 }],
    ];
    for (const [q, args] of cases) {
      const { r, g } = await auditPage(JWT(admin), q, args);
      expect(r.ok, `${q}: ${JSON.stringify(r)}`).toBe(true);
      expect(g, q).toEqual(r);
    }
    // The filters did filter (so equal answers are not equal by accident).
    const byKey = (await auditPage(JWT(admin), `resource_type=api_key&resource_id=${key.id}`, {})).r as { value: { items: { action: string; actor_type: string }[] } };
    expect(byKey.value.items.map((e) => e.action)).toEqual(["api_key.disabled", "api_key.authenticated", "api_key.created"]);
    const byActor = (await auditPage(JWT(admin), "actor_type=api_key", {})).r as { value: { items: { actor_type: string }[]; total: number } };
    expect(byActor.value.total).toBeGreaterThan(0);
    expect(byActor.value.items.every((e) => e.actor_type === "api_key")).toBe(true);
    expect(JSON.stringify(byKey)).not.toContain(key.token);
  });

  it("refuse the same callers and the same bad paging with the same errors", async () => {
    const adminKey = await mintKey(admin, ["api_keys:admin"]);
    const cases: [string, Auth, string, Record<string, unknown>, number, string | null][] = [
      ["a user's token", JWT(owner), "", {}, 403, "insufficient_scope"],
      ["an administrator's key without audit_logs:admin", { authorization: adminKey.token }, "", {}, 403, "insufficient_scope"],
      ["anonymous", {}, "", {}, 401, "unauthenticated"],
      ["page 0", JWT(admin), "page=0", { page: 0 }, 422, "validation_error"],
      ["size 0", JWT(admin), "size=0", { size: 0 }, 422, "validation_error"],
      ["size 101", JWT(admin), "size=101", { size: 101 }, 422, "validation_error"],
      ["size 100 (the maximum)", JWT(admin), "size=100", { size: 100 }, 200, null],
    ];
    for (const [label, auth, q, args, status, code] of cases) {
      const { r, g } = await auditPage(auth, q, args);
      expect(r.ok ? 200 : (r as { status: number }).status, label).toBe(status);
      if (code) expect(r, label).toMatchObject({ code });
      if (!r.ok && !g.ok) {
        // Validation issues name the REST query parameter or the GraphQL argument: compare the rest.
        expect({ ...g, detail: null }, label).toEqual({ ...r, detail: null });
        if (status !== 422) expect(g.detail, label).toEqual(r.detail);
      } else {
        expect(g, label).toEqual(r);
      }
    }
  });

  // A variable that GraphQL cannot coerce (an unknown enum value, a DateTime that does not parse)
  // reaches maskError as a GraphQLError without a path: it must be answered as the client's
  // mistake, never as a 500 "unhandled error in a resolver".
  it("rejects values GraphQL's types cannot carry as a client error, as REST rejects them with 422", async () => {
    for (const [q, args, type] of [
      ["actor_type=robot", { actorType: "robot" }, "AuditActorType"],
      ["date_from=yesterday", { dateFrom: "yesterday" }, "DateTime"],
    ] as const) {
      const r = await app.http.get(`/admin/audit-logs/?${q}`, { token: admin.token });
      expect(r.status, q).toBe(422);
      const name = Object.keys(args)[0];
      const g = await gql(JWT(admin), `query ($v: ${type}) { auditLogs(${name}: $v) { total } }`, { v: Object.values(args)[0] });
      expect(g.body.data ?? null, q).toBeNull();
      const err = g.body.errors?.[0];
      expect(err?.extensions?.status ?? 400, q).toBeLessThan(500);
      expect(err?.message, q).toContain("$v");
    }
  });
});

describe("apiKeyPage and adminApiKeyPage", () => {
  const ids = (body: { data?: Record<string, { items: { id: number }[] }> | null }, field: string) => body.data?.[field]?.items.map((k) => k.id);

  it("page the same keys in the same order as the whole lists, with the total; the owner's only; refused as the lists are", async () => {
    const pageUser = await createUser(app, admin, 3);
    for (let i = 0; i < 5; i++) await mintKey(pageUser);
    const all = (await gql(JWT(pageUser), "{ apiKeys { id } }")).body.data.apiKeys.map((k: { id: number }) => k.id);
    expect(all).toHaveLength(5);
    const first = await gql(JWT(pageUser), "{ apiKeyPage(page: 1, size: 2) { total pages items { id } } }");
    const third = await gql(JWT(pageUser), "{ apiKeyPage(page: 3, size: 2) { total pages items { id } } }");
    expect(first.body.data.apiKeyPage).toMatchObject({ total: 5, pages: 3 });
    expect([...ids(first.body, "apiKeyPage")!, ...ids(third.body, "apiKeyPage")!]).toEqual([...all.slice(0, 2), all[4]]);

    const q = "query($u: Int, $p: Int) { adminApiKeyPage(userId: $u, page: $p, size: 2) { total items { id userId } } }";
    const adminFirst = await gql(JWT(admin), q, { u: pageUser.id, p: 1 });
    expect(adminFirst.body.data.adminApiKeyPage.total).toBe(5);
    expect(ids(adminFirst.body, "adminApiKeyPage")).toEqual(all.slice(0, 2));
    const everyone = (await gql(JWT(admin), "{ adminApiKeyPage(size: 100) { total } }")).body.data.adminApiKeyPage.total;
    expect(everyone).toBe((await gql(JWT(admin), "{ adminApiKeys { id } }")).body.data.adminApiKeys.length);

    const refused = await gql(JWT(pageUser), q, { u: pageUser.id, p: 1 });
    expect(refused.body.errors?.[0]?.extensions?.status).toBe(403);
    for (const bad of [{ u: 0, p: 1 }, { u: pageUser.id, p: 0 }]) {
      const res = await gql(JWT(admin), q, bad);
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(bad)).toBe("validation_error");
    }
  });
});
