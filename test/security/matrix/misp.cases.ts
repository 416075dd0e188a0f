import type { Actor, MatrixCase, MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * The MISP-compatible API (rest-shim/misp/). MISP answers a missing or refused credential with 403
 * (not 401), so `anonymous` is 403 here. As in events.cases.ts, `otherUser` aims at a fresh org-only
 * event of ANOTHER organisation (MISP's 404 "Invalid event"); the owner and the administrator at a
 * fresh event of the owner. Role 3 lacks events:delete and events:publish. The key of `wrongScope`
 * holds tags:read only: getVersion (any caller) and tags/index answer it; tagging needs the
 * target's read and tag scopes, which the services check.
 */
const perEvent = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });
const anyUser = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: ok, owner: ok, admin: ok });
const beyondRole3 = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: 403, owner: 403, admin: ok });
const everyCaller = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: ok, otherUser: ok, owner: ok, admin: ok });

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-misp-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

async function rest(w: MatrixWorld, user: TestUser, path: string, json: unknown) {
  const res = await w.app.http.post(path, { token: user.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture POST ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A fresh org-only event with one attribute carrying a fresh tag: another organisation's for `otherUser`, the owner's for everyone else. */
async function fixture(actor: Actor, w: MatrixWorld): Promise<{ event: string; attribute: string; tag: string }> {
  const user = actor === "otherUser" ? await foreignUser(w) : w.owner;
  const event = await rest(w, user, "/events/", { info: w.unique("matrix-misp"), distribution: 0 });
  const attribute = await rest(w, user, "/attributes/", { event_uuid: event.uuid, type: "ip-dst", value: "192.0.2.44" });
  const tag = w.unique("matrix-misp-tag");
  const tagged = await w.app.http.post(`/events/${event.uuid}/tag/${encodeURIComponent(tag)}`, { token: user.token });
  if (tagged.status !== 201) throw new Error(`matrix fixture tag: ${tagged.text}`);
  return { event: event.uuid, attribute: attribute.uuid, tag };
}

export const mispCases: MatrixCase[] = [
  { route: "GET /misp/servers/getVersion", request: () => ({ path: "/misp/servers/getVersion" }), expect: everyCaller(200) },
  { route: "GET /misp/users/view/me", request: () => ({ path: "/misp/users/view/me" }), expect: anyUser(200) },
  { route: "GET /misp/attributes/describeTypes.json", request: () => ({ path: "/misp/attributes/describeTypes.json" }), expect: anyUser(200) },
  { route: "POST /misp/events/add", request: (_a, w) => ({ path: "/misp/events/add", json: { Event: { info: w.unique("matrix-misp-add") } } }), expect: anyUser(200) },
  { route: "GET /misp/events/view/{event_id}", request: async (a, w) => ({ path: `/misp/events/view/${(await fixture(a, w)).event}` }), expect: perEvent(200) },
  { route: "POST /misp/events/edit/{event_id}", request: async (a, w) => ({ path: `/misp/events/edit/${(await fixture(a, w)).event}`, json: { Event: { info: "edited by the matrix" } } }), expect: perEvent(200) },
  { route: "POST /misp/events/delete/{event_id}", request: async (a, w) => ({ path: `/misp/events/delete/${(await fixture(a, w)).event}` }), expect: beyondRole3(200) },
  { route: "DELETE /misp/events/delete/{event_id}", request: async (a, w) => ({ path: `/misp/events/delete/${(await fixture(a, w)).event}` }), expect: beyondRole3(200) },
  { route: "POST /misp/events/publish/{event_id}", request: async (a, w) => ({ path: `/misp/events/publish/${(await fixture(a, w)).event}` }), expect: beyondRole3(200) },
  { route: "POST /misp/events/unpublish/{event_id}", request: async (a, w) => ({ path: `/misp/events/unpublish/${(await fixture(a, w)).event}` }), expect: beyondRole3(200) },
  { route: "GET /misp/events/index", request: () => ({ path: "/misp/events/index/limit:5" }), expect: anyUser(200) },
  { route: "POST /misp/events/index", request: () => ({ path: "/misp/events/index", json: { eventinfo: "matrix", limit: 5 } }), expect: anyUser(200) },
  {
    route: "POST /misp/attributes/add/{event_id}",
    request: async (a, w) => ({ path: `/misp/attributes/add/${(await fixture(a, w)).event}`, json: { type: "domain", value: "matrix.example" } }),
    expect: perEvent(200),
  },
  { route: "GET /misp/attributes/view/{attribute_id}", request: async (a, w) => ({ path: `/misp/attributes/view/${(await fixture(a, w)).attribute}` }), expect: perEvent(200) },
  {
    route: "POST /misp/attributes/edit/{attribute_id}",
    request: async (a, w) => ({ path: `/misp/attributes/edit/${(await fixture(a, w)).attribute}`, json: { Attribute: { comment: "edited by the matrix" } } }),
    expect: perEvent(200),
  },
  { route: "POST /misp/attributes/delete/{attribute_id}", request: async (a, w) => ({ path: `/misp/attributes/delete/${(await fixture(a, w)).attribute}` }), expect: perEvent(200) },
  { route: "GET /misp/tags/index", request: () => ({ path: "/misp/tags/index/searchall:matrix" }), expect: everyCaller(200) },
  { route: "POST /misp/tags/add", request: (_a, w) => ({ path: "/misp/tags/add", json: { name: w.unique("matrix-misp-new") } }), expect: anyUser(200) },
  {
    route: "POST /misp/tags/attachTagToObject",
    request: async (a, w) => ({ path: "/misp/tags/attachTagToObject", json: { uuid: (await fixture(a, w)).event, tag: w.unique("matrix-misp-attach") } }),
    expect: perEvent(200),
  },
  {
    route: "POST /misp/tags/removeTagFromObject",
    request: async (a, w) => {
      const f = await fixture(a, w);
      return { path: "/misp/tags/removeTagFromObject", json: { uuid: f.event, tag: f.tag } };
    },
    expect: perEvent(200),
  },
  { route: "POST /misp/sightings/add", request: async (a, w) => ({ path: "/misp/sightings/add", json: { uuid: (await fixture(a, w)).attribute } }), expect: perEvent(200) },
  { route: "POST /misp/sightings/add/{attribute_id}", request: async (a, w) => ({ path: `/misp/sightings/add/${(await fixture(a, w)).attribute}`, json: {} }), expect: perEvent(200) },
];
