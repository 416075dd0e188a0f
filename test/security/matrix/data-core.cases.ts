import { expectFor, type Actor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * Attributes, objects, tags and sightings.
 *
 * Access to attributes and objects follows their event, and events belong to organisations: in
 * the matrix world `otherUser` shares the owner's organisation, so it could read and change the
 * owner's org-only events (that is the MISP rule, and the integration tests check it). To show
 * what another user gets, the per-resource rows give `otherUser` a resource in an org-only event
 * of ANOTHER organisation (created by that organisation's user): 404, existence not disclosed.
 * The owner works on a fresh event of its own (2xx); the administrator on the owner's (2xx).
 * Anonymous callers and the `tags:read` key fail on authentication and scopes before any lookup.
 */
const perEvent = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });
/** Tags are global: the wrong-scope key holds exactly `tags:read`. */
const tagReaders = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: ok, otherUser: ok, owner: ok, admin: ok });
/** Role 3 ("user") may create tags but not change or delete them. */
const tagCreators = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: ok, owner: ok, admin: ok });

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

/** A role-3 user of another organisation, once per world. */
function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-foreign-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

/** Whose event a case works on: another organisation's for `otherUser`, the owner's for everyone else. */
const creatorFor = async (actor: Actor, w: MatrixWorld): Promise<TestUser> => (actor === "otherUser" ? foreignUser(w) : w.owner);

async function call(w: MatrixWorld, user: TestUser, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token: user.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A fresh org-only event of the actor's target organisation. */
async function eventFor(actor: Actor, w: MatrixWorld): Promise<{ uuid: string; user: TestUser }> {
  const user = await creatorFor(actor, w);
  const e = await call(w, user, "POST", "/events/", { info: w.unique("matrix-event"), distribution: 0 });
  return { uuid: e.uuid, user };
}

async function attributeFor(actor: Actor, w: MatrixWorld): Promise<string> {
  const e = await eventFor(actor, w);
  const a = await call(w, e.user, "POST", "/attributes/", { event_uuid: e.uuid, type: "ip-dst", value: "198.51.100.7" });
  return a.uuid;
}

async function objectFor(actor: Actor, w: MatrixWorld): Promise<string> {
  const e = await eventFor(actor, w);
  const o = await call(w, e.user, "POST", "/objects/", { event_uuid: e.uuid, name: "domain-ip", attributes: [{ type: "domain", value: "example.org" }] });
  return o.uuid;
}

async function tagFor(w: MatrixWorld): Promise<number> {
  const t = await call(w, w.admin, "POST", "/tags/", { name: w.unique("matrix-tag") });
  return t.id;
}

export const dataCoreCases: MatrixCase[] = [
  // ---- attributes ----
  { route: "GET /attributes/", request: () => ({ path: "/attributes/?size=5" }), expect: expectFor.anyUser(200) },
  { route: "GET /attributes/search", request: () => ({ path: "/attributes/search?query=type:domain&size=5" }), expect: expectFor.anyUser(200) },
  { route: "GET /attributes/{attribute_uuid}", request: async (a, w) => ({ path: `/attributes/${await attributeFor(a, w)}` }), expect: perEvent(200) },
  {
    route: "POST /attributes/",
    request: async (a, w) => ({ path: "/attributes/", json: { event_uuid: (await eventFor(a, w)).uuid, type: "domain", value: "example.com" } }),
    expect: perEvent(201),
  },
  {
    route: "PATCH /attributes/{attribute_uuid}",
    request: async (a, w) => ({ path: `/attributes/${await attributeFor(a, w)}`, json: { comment: "matrix" } }),
    expect: perEvent(200),
  },
  { route: "DELETE /attributes/{attribute_uuid}", request: async (a, w) => ({ path: `/attributes/${await attributeFor(a, w)}` }), expect: perEvent(204) },
  {
    route: "POST /attributes/{attribute_uuid}/tag/{tag}",
    request: async (a, w) => ({ path: `/attributes/${await attributeFor(a, w)}/tag/matrix:tag` }),
    expect: perEvent(201),
  },
  {
    route: "DELETE /attributes/{attribute_uuid}/tag/{tag}",
    request: async (a, w) => {
      const uuid = await attributeFor(a, w);
      await call(w, await creatorFor(a, w), "POST", `/attributes/${uuid}/tag/matrix:tag`);
      return { path: `/attributes/${uuid}/tag/matrix:tag` };
    },
    expect: perEvent(204),
  },

  // ---- objects ----
  { route: "GET /objects/", request: () => ({ path: "/objects/?size=5" }), expect: expectFor.anyUser(200) },
  { route: "GET /objects/{object_uuid}", request: async (a, w) => ({ path: `/objects/${await objectFor(a, w)}` }), expect: perEvent(200) },
  {
    route: "POST /objects/",
    request: async (a, w) => ({
      path: "/objects/",
      json: { event_uuid: (await eventFor(a, w)).uuid, name: "file", attributes: [{ type: "filename", value: "a.exe" }] },
    }),
    expect: perEvent(201),
  },
  {
    route: "PATCH /objects/{object_uuid}",
    request: async (a, w) => ({ path: `/objects/${await objectFor(a, w)}`, json: { comment: "matrix", new_attributes: [{ type: "ip-dst", value: "198.51.100.8" }] } }),
    expect: perEvent(200),
  },
  { route: "DELETE /objects/{object_uuid}", request: async (a, w) => ({ path: `/objects/${await objectFor(a, w)}` }), expect: perEvent(204) },

  // ---- tags (global; role 3 reads and creates, only tags:admin holders (beside tags:update / tags:delete) change them) ----
  { route: "GET /tags/", request: () => ({ path: "/tags/?size=5" }), expect: tagReaders(200) },
  { route: "GET /tags/{tag_id}", request: async (_a, w) => ({ path: `/tags/${await tagFor(w)}` }), expect: tagReaders(200) },
  { route: "POST /tags/", request: (_a, w) => ({ path: "/tags/", json: { name: w.unique("matrix-new-tag"), colour: "#112233" } }), expect: tagCreators(201) },
  { route: "PATCH /tags/{tag_id}", request: async (_a, w) => ({ path: `/tags/${await tagFor(w)}`, json: { hide_tag: true } }), expect: expectFor.adminOnly(200) },
  { route: "DELETE /tags/{tag_id}", request: async (_a, w) => ({ path: `/tags/${await tagFor(w)}` }), expect: expectFor.adminOnly(204) },

  // ---- sightings: by attribute uuid, so that another organisation's restricted attribute is a 404 ----
  {
    route: "POST /sightings/",
    request: async (a, w) => ({ path: "/sightings/", json: { attribute_uuid: await attributeFor(a, w), value: "198.51.100.7" } }),
    expect: perEvent(201),
  },
  { route: "GET /sightings/", request: () => ({ path: "/sightings/?size=5" }), expect: expectFor.anyUser(200) },
];
