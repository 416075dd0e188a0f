import type { CaseContext } from "./expectations.ts";
import type { RestCase } from "./rest.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * The MISP-compatible API (rest-shim/misp/): the same refusals as the REST routes it adapts, in
 * MISP's words. A's private event and hidden attributes are MISP's 404 ("Invalid event", "Invalid
 * attribute", "Invalid Target."), by numeric id as by uuid (B's callers alternate); B's user
 * reads A's shared event but may not change it (403). MISP answers a missing scope with 403 too.
 */
const alternate = <T>({ actor }: CaseContext, first: T, second: T): T => (actor === "bUser" || actor === "bKey" ? second : first);

/** MISP's numeric id of an event or attribute (read from the database: the ids are what PyMISP sends). */
async function idOf(w: CrossOrgWorld, table: "events" | "attributes", uuid: string): Promise<string> {
  const { rows } = await w.app.booted.ctx.db.pool.query<{ id: string }>(`SELECT id::text FROM ${table} WHERE uuid = $1`, [uuid]);
  return rows[0].id;
}

/** A's private event, by id for B's admin and read-only user, by uuid for the others. */
const privateEvent = async (ctx: CaseContext) => alternate(ctx, await idOf(ctx.w, "events", ctx.w.a.privateEvent.uuid), ctx.w.a.privateEvent.uuid);
/** A hidden attribute: in A's private event (by id), or of distribution 0 in A's shared event (by uuid). */
const hiddenAttribute = async (ctx: CaseContext) => alternate(ctx, await idOf(ctx.w, "attributes", ctx.w.a.privateAttribute.uuid), ctx.w.a.sharedPrivateAttribute.uuid);
/** Writes: B's user aims at what it reads but may not change (403), the others at what they cannot see. */
const onShared = { bUser: 403 } as const;
const writeEvent = async (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedEvent.uuid : privateEvent(ctx));
const writeAttribute = async (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedAttribute.uuid : hiddenAttribute(ctx));

/** B's own tag on B's own event: the `&` piece B's user's index answer hangs on. */
const bIndexTag = (w: CrossOrgWorld) => `b-index-${w.tag}`;
/** B's user's index filter: its title or A's private one, and B's tag `&` another. */
const bUserIndex = (w: CrossOrgWorld, other: string) => ({ eventinfo: `nothing-${w.tag}|${w.a.privateEvent.info.slice(2).toUpperCase()}|b event ${w.tag}`, tags: `${bIndexTag(w)}&${other}` });

/**
 * events/index filters aimed at A's private event, MISP's index forms (event-index-filter.ts): its
 * title in another case among `|` pieces and `!` ones, A's organisation by name, id and uuid in a
 * list or `|` pieces with B's left out, A's tag; the site administrator's (the NOT forms) finds it.
 * B's user asks for B's tag `&` A's private one, which MISP's index leaves out when no tag has the
 * name: bIndexCheck holds it to the answer for a tag no one has, so that it tells nothing of A's tag.
 */
async function indexFilters({ actor, w }: CaseContext): Promise<Record<string, unknown>> {
  const { org, tag } = w.a;
  switch (actor) {
    case "bUser":
      await w.call("bUser", "POST", `/events/${w.bEvent.uuid}/tag/${bIndexTag(w)}`);
      return bUserIndex(w, tag.name);
    case "bRead":
      return { org: `${org.name.toUpperCase()}|!${w.orgB.name}` };
    case "bKey":
      return { org: [String(org.id), org.uuid], tags: tag.name };
    case "bAdmin":
      return { eventinfo: `!nothing-${w.tag}`, org: { NOT: [w.orgB.uuid] }, tags: `${tag.name}|nothing-${w.tag}` };
    default:
      // Validators that run before it rename A's private event and take its tag off: the NOT forms find it.
      return { eventinfo: `!nothing-${w.tag}`, org: [`!${w.orgB.name.toLowerCase()}`, `!${w.orgB.id}`], tags: `!nothing-${w.tag}` };
  }
}

/**
 * A's shared event as B's callers find it in the index: MISP's attribute_count counts the attributes
 * inside objects too, but only what B may read (the shared attribute and the one in the shared
 * object, not the organisation-only attributes nor the one in the organisation-only object).
 */
function sharedEventCount(body: unknown, w: CrossOrgWorld, listed: boolean): string | null {
  const shared = (body as { uuid: string; attribute_count: string }[]).find((e) => e.uuid === w.a.sharedEvent.uuid);
  if (!shared) return listed ? "A's shared event is not listed" : null;
  return shared.attribute_count === "2" ? null : `A's shared event counts ${shared.attribute_count} attributes, B may read 2`;
}

/** B's user's answer with A's private tag: B's event, as with a tag that does not exist. */
async function bIndexCheck(body: unknown, { actor, w }: CaseContext): Promise<string | null> {
  const counted = sharedEventCount(body, w, false);
  if (counted) return counted;
  if (actor !== "bUser") return null;
  const uuids = (events: unknown) => JSON.stringify((events as { uuid: string }[]).map((e) => e.uuid).sort());
  const absent = await w.call("bUser", "POST", "/misp/events/index", { limit: 1000, ...bUserIndex(w, `no-such-tag-${w.tag}`) });
  if (uuids(body) !== uuids(absent)) return `A's private tag answers ${uuids(body)}, a tag no one has ${uuids(absent)}`;
  return uuids(body).includes(w.bEvent.uuid) ? null : "B's own tagged event is not found";
}

export const mispRest: RestCase[] = [
  { route: "GET /misp/servers/getVersion", request: () => ({ path: "/misp/servers/getVersion" }), b: "own", validator: { as: "aUser", status: 200 } },
  { route: "GET /misp/users/view/me", request: () => ({ path: "/misp/users/view/me" }), b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.users.aUser.email] },
  { route: "GET /misp/attributes/describeTypes.json", request: () => ({ path: "/misp/attributes/describeTypes.json" }), b: "shared", validator: { status: 200 } },
  {
    route: "POST /misp/events/add",
    // A's private event's uuid: B's callers are refused (it is another organisation's); the
    // administrator, who sees it, gets MISP's "Event already exists" 404.
    request: ({ w }) => ({ path: "/misp/events/add", json: { Event: { uuid: w.a.privateEvent.uuid, info: "taken over by B", distribution: "3" } } }),
    b: "denied", validator: { status: 404 },
  },
  { route: "GET /misp/events/view/{event_id}", request: async (ctx) => ({ path: `/misp/events/view/${await privateEvent(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /misp/events/edit/{event_id}",
    request: async (ctx) => ({ path: `/misp/events/edit/${await writeEvent(ctx)}`, json: { Event: { info: "renamed by B" } } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  ...(["POST", "DELETE"] as const).map((method) => ({
    route: `${method} /misp/events/delete/{event_id}`,
    request: async (ctx: CaseContext) => ({ path: `/misp/events/delete/${ctx.validating ? await ctx.w.throwaway.event() : await privateEvent(ctx)}` }),
    b: "hidden" as const, validator: { status: 200 },
  })),
  { route: "POST /misp/events/publish/{event_id}", request: async (ctx) => ({ path: `/misp/events/publish/${await privateEvent(ctx)}` }), b: "hidden", validator: { status: 200 } },
  { route: "POST /misp/events/unpublish/{event_id}", request: async (ctx) => ({ path: `/misp/events/unpublish/${await privateEvent(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "GET /misp/events/index", request: () => ({ path: "/misp/events/index/limit:1000" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (body, { w }) => sharedEventCount(body, w, true),
  },
  {
    route: "POST /misp/events/index",
    request: async (ctx) => ({ path: "/misp/events/index", json: { limit: 1000, ...(await indexFilters(ctx)) } }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: bIndexCheck,
  },
  {
    route: "POST /misp/attributes/add/{event_id}",
    request: async (ctx) => ({ path: `/misp/attributes/add/${await writeEvent(ctx)}`, json: [{ type: "domain", value: `${ctx.w.unique("b")}.example.org` }] }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { route: "GET /misp/attributes/view/{attribute_id}", request: async (ctx) => ({ path: `/misp/attributes/view/${await hiddenAttribute(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /misp/attributes/edit/{attribute_id}",
    request: async (ctx) => ({ path: `/misp/attributes/edit/${await writeAttribute(ctx)}`, json: { Attribute: { comment: "by B" } } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    route: "POST /misp/attributes/delete/{attribute_id}",
    request: async (ctx) => ({ path: `/misp/attributes/delete/${ctx.validating ? await ctx.w.throwaway.attribute() : await writeAttribute(ctx)}` }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { route: "GET /misp/tags/index", request: ({ w }) => ({ path: `/misp/tags/index/searchall:${w.tag}` }), b: "shared", validator: { status: 200 } },
  // MISP's tags/add names no organisation: B's tag is B's own.
  { route: "POST /misp/tags/add", request: ({ w }) => ({ path: "/misp/tags/add", json: { name: w.unique("b-misp-tag") } }), b: "own", validator: { status: 200 } },
  {
    route: "POST /misp/tags/attachTagToObject",
    request: async (ctx) => ({ path: "/misp/tags/attachTagToObject", json: { uuid: ctx.actor === "bUser" ? ctx.w.a.sharedEvent.uuid : ctx.w.a.privateEvent.uuid, tag: "b-was-here" } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    route: "POST /misp/tags/removeTagFromObject",
    request: async ({ w, validating }) => {
      if (!validating) return { path: "/misp/tags/removeTagFromObject", json: { uuid: w.a.privateEvent.uuid, tag: w.a.tag.name } };
      const uuid = await w.throwaway.event();
      await w.call("aUser", "POST", `/events/${uuid}/tag/${w.a.tag.name}`);
      return { path: "/misp/tags/removeTagFromObject", json: { uuid, tag: w.a.tag.name } };
    },
    // The narrow key cannot look the tag up (tags:read) before anything else is looked at.
    b: "hidden", override: { bKey: 403 }, validator: { status: 200 },
  },
  {
    route: "POST /misp/sightings/add",
    request: async (ctx) => ({ path: "/misp/sightings/add", json: { uuid: alternate(ctx, ctx.w.a.privateAttribute.uuid, ctx.w.a.sharedPrivateAttribute.uuid), source: "B" } }),
    b: "hidden", validator: { status: 200 },
  },
  { route: "POST /misp/sightings/add/{attribute_id}", request: async (ctx) => ({ path: `/misp/sightings/add/${await hiddenAttribute(ctx)}`, json: { source: "B" } }), b: "hidden", validator: { status: 200 } },
];
