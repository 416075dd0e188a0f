import type { Actor, MatrixCase, MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * The MISP-compatible API's second slice (free text, objects, tag search/view/edit/delete, sighting
 * lists, feeds, galaxies, taxonomies, warninglists). MISP answers a missing or refused credential
 * with 403. As in misp.cases.ts, `otherUser` aims at a fresh org-only event (and its attribute and
 * object) of ANOTHER organisation, MISP's 404; the owner and the administrator at the owner's.
 * Role 3 holds objects:*, tags:read and tags:create (not tags:update/delete, which also need
 * tags:admin), feeds:read only (feeds are the administrator's organisation's: owner and otherUser
 * are in it and read them), and reads galaxies, taxonomies and warninglists. The `wrongScope` key
 * holds tags:read only.
 */
const perEvent = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });
const anyUser = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: ok, owner: ok, admin: ok });
const adminOnly = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: 403, otherUser: 403, owner: 403, admin: ok });
const everyCaller = (ok: number): Record<Actor, number> => ({ anonymous: 403, wrongScope: ok, otherUser: ok, owner: ok, admin: ok });

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-misp-more-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

async function post(w: MatrixWorld, token: string, path: string, json: unknown) {
  const res = await w.app.http.post(path, { token, json });
  if (res.status >= 300) throw new Error(`matrix fixture POST ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A fresh org-only event with an attribute (sighted) and an object: another organisation's for `otherUser`, the owner's for everyone else. */
async function fixture(actor: Actor, w: MatrixWorld): Promise<{ event: string; attribute: string; object: string; sighting: string }> {
  const user = actor === "otherUser" ? await foreignUser(w) : w.owner;
  const event = await post(w, user.token, "/events/", { info: w.unique("matrix-misp-more"), distribution: 0 });
  const attribute = await post(w, user.token, "/attributes/", { event_uuid: event.uuid, type: "ip-dst", value: "192.0.2.45" });
  await post(w, user.token, "/sightings/", { attribute_uuid: attribute.uuid, source: "matrix" });
  const object = await post(w, user.token, "/objects/", { event_uuid: event.uuid, name: "domain-ip", attributes: [{ type: "domain", value: "matrix.example.com", object_relation: "domain" }] });
  const sighting = await w.app.booted.ctx.db.pool.query<{ uuid: string }>("SELECT s.uuid::text FROM sightings s JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = $1", [attribute.uuid]);
  return { event: event.uuid, attribute: attribute.uuid, object: object.uuid, sighting: sighting.rows[0].uuid };
}

/** A fresh tag (made by the administrator), by its numeric id. */
async function tagId(w: MatrixWorld): Promise<number> {
  return (await post(w, w.admin.token, "/tags/", { name: w.unique("matrix-misp-more-tag") })).id;
}

/** A fresh network feed of the administrator's organisation (the owner's and otherUser's too), enabled or not. */
async function feedId(w: MatrixWorld, enabled = false): Promise<number> {
  const body = { name: w.unique("misp-feed"), provider: "matrix", url: "https://feeds.example.org/m", source_format: "freetext", input_source: "network", enabled };
  return (await post(w, w.admin.token, "/feeds/", body)).id;
}

export const mispMoreCases: MatrixCase[] = [
  {
    route: "POST /misp/events/freeTextImport/{event_id}",
    request: async (a, w) => ({ path: `/misp/events/freeTextImport/${(await fixture(a, w)).event}`, json: { value: "198.51.100.61 matrix-free.example.com" } }),
    expect: perEvent(200),
  },
  { route: "POST /misp/events/view/{event_id}", request: async (a, w) => ({ path: `/misp/events/view/${(await fixture(a, w)).event}`, json: { deleted: 1 } }), expect: perEvent(200) },
  {
    route: "POST /misp/objects/add/{event_id}",
    request: async (a, w) => ({ path: `/misp/objects/add/${(await fixture(a, w)).event}`, json: { name: "domain-ip", Attribute: [{ type: "domain", value: "o.example.com", object_relation: "domain" }] } }),
    expect: perEvent(200),
  },
  { route: "GET /misp/objects/view/{object_id}", request: async (a, w) => ({ path: `/misp/objects/view/${(await fixture(a, w)).object}` }), expect: perEvent(200) },
  { route: "POST /misp/objects/edit/{object_id}", request: async (a, w) => ({ path: `/misp/objects/edit/${(await fixture(a, w)).object}`, json: { Object: { comment: "matrix edit" } } }), expect: perEvent(200) },
  ...(["POST", "DELETE"] as const).map(
    (method): MatrixCase => ({ route: `${method} /misp/objects/delete/{object_id}`, request: async (a, w) => ({ path: `/misp/objects/delete/${(await fixture(a, w)).object}` }), expect: perEvent(200) }),
  ),
  {
    route: "POST /misp/objectReferences/add",
    request: async (a, w) => {
      const f = await fixture(a, w);
      return { path: "/misp/objectReferences/add", json: { object_uuid: f.object, referenced_uuid: f.attribute, relationship_type: "related-to" } };
    },
    expect: perEvent(200),
  },
  {
    route: "POST /misp/objectReferences/add/{object_id}",
    request: async (a, w) => {
      const f = await fixture(a, w);
      return { path: `/misp/objectReferences/add/${f.object}`, json: { referenced_uuid: f.attribute, relationship_type: "related-to" } };
    },
    expect: perEvent(200),
  },
  { route: "POST /misp/tags/search", request: () => ({ path: "/misp/tags/search", json: { tagname: "matrix%" } }), expect: everyCaller(200) },
  { route: "GET /misp/tags/view/{tag_id}", request: async (_a, w) => ({ path: `/misp/tags/view/${await tagId(w)}` }), expect: everyCaller(200) },
  { route: "POST /misp/tags/edit/{tag_id}", request: async (_a, w) => ({ path: `/misp/tags/edit/${await tagId(w)}`, json: { Tag: { colour: "#010203" } } }), expect: adminOnly(200) },
  { route: "POST /misp/tags/delete/{tag_id}", request: async (_a, w) => ({ path: `/misp/tags/delete/${await tagId(w)}` }), expect: adminOnly(200) },
  {
    route: "POST /misp/sightings/listSightings",
    request: async (a, w) => ({ path: "/misp/sightings/listSightings", json: { context: "attribute", id: (await fixture(a, w)).attribute } }),
    expect: perEvent(200),
  },
  // Role 3 holds no sightings:delete; the administrator deletes any sighting.
  { route: "POST /misp/sightings/delete/{sighting_id}", request: async (a, w) => ({ path: `/misp/sightings/delete/${(await fixture(a, w)).sighting}` }), expect: adminOnly(200) },
  ...(["GET", "POST"] as const).map((method): MatrixCase => ({ route: `${method} /misp/sightings/index`, request: () => ({ path: "/misp/sightings/index" }), expect: anyUser(200) })),
  { route: "GET /misp/feeds/index", request: () => ({ path: "/misp/feeds/index" }), expect: anyUser(200) },
  { route: "GET /misp/feeds/view/{feed_id}", request: async (_a, w) => ({ path: `/misp/feeds/view/${await feedId(w)}` }), expect: anyUser(200) },
  {
    route: "POST /misp/feeds/add",
    request: (_a, w) => ({ path: "/misp/feeds/add", json: { Feed: { name: w.unique("misp-feed"), provider: "m", url: "https://feeds.example.org/n", source_format: "freetext" } } }),
    expect: adminOnly(200),
  },
  { route: "POST /misp/feeds/edit/{feed_id}", request: async (_a, w) => ({ path: `/misp/feeds/edit/${await feedId(w)}`, json: { Feed: { name: "renamed" } } }), expect: adminOnly(200) },
  ...(["enable", "disable"] as const).map(
    (action): MatrixCase => ({ route: `POST /misp/feeds/${action}/{feed_id}`, request: async (_a, w) => ({ path: `/misp/feeds/${action}/${await feedId(w)}` }), expect: adminOnly(200) }),
  ),
  { route: "GET /misp/feeds/fetchFromFeed/{feed_id}", request: async (_a, w) => ({ path: `/misp/feeds/fetchFromFeed/${await feedId(w, true)}` }), expect: adminOnly(200) },
  { route: "GET /misp/feeds/fetchFromAllFeeds", request: () => ({ path: "/misp/feeds/fetchFromAllFeeds" }), expect: adminOnly(200) },
  // Feed caching maps onto nothing here: MISP's 405 in words, for whoever may fetch feeds.
  { route: "GET /misp/feeds/cacheFeeds/{scope}", request: () => ({ path: "/misp/feeds/cacheFeeds/all" }), expect: adminOnly(405) },
  { route: "POST /misp/feeds/delete/{feed_id}", request: async (_a, w) => ({ path: `/misp/feeds/delete/${await feedId(w)}` }), expect: adminOnly(200) },
  { route: "GET /misp/galaxies/index", request: () => ({ path: "/misp/galaxies/index" }), expect: anyUser(200) },
  { route: "GET /misp/taxonomies/index", request: () => ({ path: "/misp/taxonomies/index" }), expect: anyUser(200) },
  { route: "GET /misp/warninglists/index", request: () => ({ path: "/misp/warninglists/index" }), expect: anyUser(200) },
];
