import crypto from "node:crypto";
import type { Actor, MatrixCase, MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * Events. Events belong to organisations, and in the matrix world `otherUser` shares the owner's
 * organisation (it may read and change the owner's org-only events: the MISP rule, checked in the
 * integration tests). So the per-event rows give `otherUser` a fresh org-only event of ANOTHER
 * organisation: 404, existence not disclosed. The owner works on a fresh event of its own; the
 * administrator on a fresh event of the owner. Role 3 ("user") has events:read, create, update and
 * tag, but not events:delete nor events:publish: those routes answer 403 before any lookup.
 */
const perEvent = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });
const anyUser = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: ok, owner: ok, admin: ok });
/** Scopes role 3 lacks: only the administrator gets through. */
const beyondRole3 = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 403, owner: 403, admin: ok });

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

/** A role-3 user of another organisation, once per world. */
function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-events-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

async function call(w: MatrixWorld, user: TestUser, method: string, path: string) {
  const res = await w.app.http.request(method, path, { token: user.token, json: method === "POST" && path === "/events/" ? { info: w.unique("matrix-event"), distribution: 0 } : undefined });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A fresh org-only event: another organisation's for `otherUser`, the owner's for everyone else. */
async function eventFor(actor: Actor, w: MatrixWorld): Promise<{ uuid: string; user: TestUser }> {
  const user = actor === "otherUser" ? await foreignUser(w) : w.owner;
  const e = await call(w, user, "POST", "/events/");
  return { uuid: e.uuid, user };
}

const mispEvent = (w: MatrixWorld) => ({
  Event: {
    uuid: crypto.randomUUID(),
    info: w.unique("matrix-import"),
    Attribute: [{ uuid: crypto.randomUUID(), type: "ip-dst", value: "198.51.100.99" }],
  },
});

export const eventCases: MatrixCase[] = [
  { route: "GET /events/", request: () => ({ path: "/events/?size=5" }), expect: anyUser(200) },
  // Search hits are filtered by event visibility (test/integration/search-api.test.ts checks which).
  { route: "GET /events/search", request: () => ({ path: "/events/search?query=*&size=5" }), expect: anyUser(200) },
  { route: "POST /events/", request: (_a, w) => ({ path: "/events/", json: { info: w.unique("matrix-new-event") } }), expect: anyUser(201) },
  { route: "POST /events/import", request: (_a, w) => ({ path: "/events/import", json: mispEvent(w) }), expect: anyUser(201) },
  { route: "GET /events/{event_uuid}", request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}` }), expect: perEvent(200) },
  {
    route: "GET /events/{event_uuid}/export",
    request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}/export?format=misp` }),
    expect: perEvent(200),
  },
  {
    route: "PATCH /events/{event_uuid}",
    request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}`, json: { info: "matrix renamed" } }),
    expect: perEvent(200),
  },
  { route: "DELETE /events/{event_uuid}", request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}` }), expect: beyondRole3(204) },
  { route: "POST /events/{event_uuid}/publish", request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}/publish` }), expect: beyondRole3(200) },
  {
    route: "POST /events/{event_uuid}/unpublish",
    request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}/unpublish` }),
    expect: beyondRole3(200),
  },
  { route: "POST /events/{event_uuid}/tag/{tag}", request: async (a, w) => ({ path: `/events/${(await eventFor(a, w)).uuid}/tag/matrix:tag` }), expect: perEvent(201) },
  {
    route: "DELETE /events/{event_uuid}/tag/{tag}",
    request: async (a, w) => {
      const e = await eventFor(a, w);
      await call(w, e.user, "POST", `/events/${e.uuid}/tag/matrix:tag`);
      return { path: `/events/${e.uuid}/tag/matrix:tag` };
    },
    expect: perEvent(204),
  },
];
