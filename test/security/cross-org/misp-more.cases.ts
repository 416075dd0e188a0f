import type { CaseContext } from "./expectations.ts";
import type { RestCase } from "./rest.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * The MISP-compatible API's second slice (rest-shim/misp/ free-text, objects, tags, sightings,
 * feeds, knowledge): the refusals of the services it adapts, in MISP's words. A's private event,
 * its attribute and object are MISP's 404 to B, by numeric id as by uuid (B's callers alternate);
 * B's user reads A's shared event but may not add to it (403). A's feeds are A's organisation's.
 * MISP answers an unknown feed on feeds/enable and feeds/disable with 405 ("Invalid Feed.").
 */
const alternate = <T>({ actor }: CaseContext, first: T, second: T): T => (actor === "bUser" || actor === "bKey" ? second : first);

async function idOf(w: CrossOrgWorld, table: "events" | "attributes" | "objects", uuid: string): Promise<string> {
  const { rows } = await w.app.booted.ctx.db.pool.query<{ id: string }>(`SELECT id::text FROM ${table} WHERE uuid = $1`, [uuid]);
  return rows[0].id;
}

const privateEvent = async (ctx: CaseContext) => alternate(ctx, await idOf(ctx.w, "events", ctx.w.a.privateEvent.uuid), ctx.w.a.privateEvent.uuid);
const hiddenAttribute = async (ctx: CaseContext) => alternate(ctx, await idOf(ctx.w, "attributes", ctx.w.a.privateAttribute.uuid), ctx.w.a.sharedPrivateAttribute.uuid);
const hiddenObject = async (ctx: CaseContext) => alternate(ctx, await idOf(ctx.w, "objects", ctx.w.a.privateObject.uuid), ctx.w.a.sharedPrivateObject.uuid);
const onShared = { bUser: 403 } as const;
const writeEvent = async (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedEvent.uuid : privateEvent(ctx));

export const mispMoreRest: RestCase[] = [
  {
    route: "POST /misp/events/freeTextImport/{event_id}",
    request: async (ctx) => ({ path: `/misp/events/freeTextImport/${await writeEvent(ctx)}`, json: { value: `${ctx.w.unique("b-free")}.example.org` } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { route: "POST /misp/events/view/{event_id}", request: async (ctx) => ({ path: `/misp/events/view/${await privateEvent(ctx)}`, json: { deleted: 1, extended: 1 } }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /misp/objects/add/{event_id}",
    request: async (ctx) => ({ path: `/misp/objects/add/${await writeEvent(ctx)}`, json: { name: "domain-ip", Attribute: [{ type: "domain", value: `${ctx.w.unique("b-obj")}.example.org`, object_relation: "domain" }] } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { route: "GET /misp/objects/view/{object_id}", request: async (ctx) => ({ path: `/misp/objects/view/${await hiddenObject(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /misp/objects/edit/{object_id}",
    request: async (ctx) => ({ path: `/misp/objects/edit/${ctx.validating ? await ctx.w.throwaway.object() : await hiddenObject(ctx)}`, json: { Object: { comment: "B was here" } } }),
    b: "hidden", validator: { status: 200 },
  },
  ...(["POST", "DELETE"] as const).map((method) => ({
    route: `${method} /misp/objects/delete/{object_id}`,
    request: async (ctx: CaseContext) => ({ path: `/misp/objects/delete/${ctx.validating ? await ctx.w.throwaway.object() : await hiddenObject(ctx)}` }),
    b: "hidden" as const, validator: { status: 200 },
  })),
  {
    route: "POST /misp/objectReferences/add",
    request: async (ctx) => ({ path: "/misp/objectReferences/add", json: { object_uuid: await hiddenObject(ctx), referenced_uuid: ctx.w.a.privateAttribute.uuid, relationship_type: "related-to" } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "POST /misp/objectReferences/add/{object_id}",
    request: async (ctx) => ({ path: `/misp/objectReferences/add/${await hiddenObject(ctx)}`, json: { referenced_uuid: ctx.w.a.privateAttribute.uuid, relationship_type: "related-to" } }),
    b: "hidden", validator: { status: 200 },
  },
  { route: "POST /misp/tags/search", request: ({ w }) => ({ path: "/misp/tags/search", json: { tagname: `${w.tag}%` } }), b: "shared", validator: { status: 200 } },
  { route: "GET /misp/tags/view/{tag_id}", request: ({ w }) => ({ path: `/misp/tags/view/${w.a.tag.id}` }), b: "shared", validator: { status: 200 } },
  // Tag definitions are instance-wide: changing one is the administrator's (tags:admin).
  { route: "POST /misp/tags/edit/{tag_id}", request: ({ w }) => ({ path: `/misp/tags/edit/${w.a.tag.id}`, json: { Tag: { colour: "#0b0b0b" } } }), b: "denied", validator: { status: 200 } },
  {
    route: "POST /misp/tags/delete/{tag_id}",
    request: async ({ w, validating }) => ({ path: `/misp/tags/delete/${validating ? await w.throwaway.tag() : w.a.tag.id}` }),
    b: "denied", validator: { status: 200 },
  },
  {
    route: "POST /misp/sightings/listSightings",
    request: async (ctx) => ({ path: "/misp/sightings/listSightings", json: { context: "attribute", id: await hiddenAttribute(ctx) } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "POST /misp/sightings/delete/{sighting_id}",
    request: async ({ w, validating }) => {
      // The validator deletes a fresh sighting of its own; B aims at A's sighting of the private event.
      const attribute = validating ? await w.throwaway.attribute() : null;
      if (attribute) await w.call("aUser", "POST", "/sightings/", { attribute_uuid: attribute, source: "validator" });
      const [s] = attribute
        ? await w.q<{ uuid: string }>("SELECT s.uuid::text FROM sightings s JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = $1", [attribute])
        : await w.q<{ uuid: string }>("SELECT s.uuid::text FROM sightings s JOIN events e ON e.id = s.event_id WHERE e.uuid = $1 ORDER BY s.id LIMIT 1", [w.a.privateEvent.uuid]);
      return { path: `/misp/sightings/delete/${s.uuid}` };
    },
    b: "hidden", validator: { status: 200 },
  },
  ...(["GET", "POST"] as const).map((method) => ({
    route: `${method} /misp/sightings/index`,
    request: () => ({ path: "/misp/sightings/index" }),
    b: "filtered" as const, validator: { status: 200 }, validatorFinds: (w: CrossOrgWorld) => [w.a.sightingSource],
  })),
  { route: "GET /misp/feeds/index", request: () => ({ path: "/misp/feeds/index" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.networkFeed.name] },
  { route: "GET /misp/feeds/view/{feed_id}", request: ({ w }) => ({ path: `/misp/feeds/view/${w.a.networkFeed.id}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /misp/feeds/add",
    request: ({ w }) => ({ path: "/misp/feeds/add", json: { Feed: { name: w.unique("B misp feed"), provider: "B", url: "https://feeds.example.org/b-misp", source_format: "freetext" } } }),
    b: "own", validator: { status: 200 },
  },
  { route: "POST /misp/feeds/edit/{feed_id}", request: ({ w }) => ({ path: `/misp/feeds/edit/${w.a.networkFeed.id}`, json: { Feed: { url: "https://feeds.example.org/b" } } }), b: "hidden", validator: { status: 200 } },
  ...(["enable", "disable"] as const).map((action) => ({
    route: `POST /misp/feeds/${action}/{feed_id}`,
    request: async ({ w, validating }: CaseContext) => ({ path: `/misp/feeds/${action}/${validating ? await w.throwaway.feed() : w.a.networkFeed.id}` }),
    b: "denied" as const, also: [405], validator: { status: 200 },
  })),
  {
    route: "GET /misp/feeds/fetchFromFeed/{feed_id}",
    request: async ({ w, validating }) => ({ path: `/misp/feeds/fetchFromFeed/${validating ? await w.throwaway.feed() : w.a.networkFeed.id}` }),
    b: "hidden", validator: { status: 200 },
  },
  // B's fetch of all feeds queues B's own (none of A's): the answer says whether any was enabled.
  { route: "GET /misp/feeds/fetchFromAllFeeds", request: () => ({ path: "/misp/feeds/fetchFromAllFeeds" }), b: "own", validator: { status: 200 } },
  { route: "GET /misp/feeds/cacheFeeds/{scope}", request: ({ w }) => ({ path: `/misp/feeds/cacheFeeds/${w.a.networkFeed.id}` }), b: "denied", also: [405], validator: { status: 405 } },
  {
    route: "POST /misp/feeds/delete/{feed_id}",
    request: async ({ w, validating }) => ({ path: `/misp/feeds/delete/${validating ? await w.throwaway.feed() : w.a.networkFeed.id}` }),
    b: "hidden", validator: { status: 200 },
  },
  { route: "GET /misp/galaxies/index", request: () => ({ path: "/misp/galaxies/index" }), b: "shared", validator: { status: 200 } },
  { route: "GET /misp/taxonomies/index", request: () => ({ path: "/misp/taxonomies/index" }), b: "shared", validator: { status: 200 } },
  { route: "GET /misp/warninglists/index", request: () => ({ path: "/misp/warninglists/index" }), b: "shared", validator: { status: 200 } },
];
