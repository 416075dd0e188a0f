import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * Events, attributes, objects, tags, sightings, search and retention. A's private event is hidden
 * from B (404); A's shared event is readable by B, but not its distribution-0 attribute and object
 * (404), and only A changes it (403). Where two targets are equally hidden, B's callers alternate
 * between them (one in the private event, one hidden inside the shared event).
 */
const alternate = <T>({ actor }: CaseContext, first: T, second: T): T => (actor === "bUser" || actor === "bKey" ? second : first);

/** A hidden attribute: in A's private event, or of distribution 0 in A's shared event. */
const hiddenAttribute = (ctx: CaseContext) => alternate(ctx, ctx.w.a.privateAttribute.uuid, ctx.w.a.sharedPrivateAttribute.uuid);
/** A hidden object: A's private event's, or the distribution-0 one of A's shared event. */
const hiddenObject = (ctx: CaseContext) => alternate(ctx, ctx.w.a.privateObject.uuid, ctx.w.a.sharedPrivateObject.uuid);

/**
 * Writes: B's user, who holds role 3's write scopes, aims at A's shared event or its visible
 * attribute or object, which it reads but may not change (403); B's other callers aim at a hidden
 * target (404, or 403 without the scope).
 */
const onShared = { bUser: 403 } as const;
const writeEvent = (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedEvent.uuid : ctx.w.a.privateEvent.uuid);
const writeAttribute = (ctx: CaseContext, hidden: string) => (ctx.actor === "bUser" ? ctx.w.a.sharedAttribute.uuid : hidden);
const writeObject = (ctx: CaseContext, hidden: string) => (ctx.actor === "bUser" ? ctx.w.a.sharedObject.uuid : hidden);

/** Every private thing of A's events, for the validator's answers to lists and searches. */
const privateOfEvents = (w: CrossOrgWorld) => [w.a.privateEvent.uuid];
const privateAttributes = (w: CrossOrgWorld) => [w.a.privateAttribute.uuid, w.a.sharedPrivateAttribute.uuid];

export const eventsRest: RestCase[] = [
  // ---- events ----
  { route: "GET /events/", request: () => ({ path: "/events/?size=100" }), b: "filtered", validator: { status: 200 }, validatorFinds: privateOfEvents },
  { route: "GET /events/search", request: () => ({ path: "/events/search?query=*&size=100" }), b: "filtered", validator: { status: 200 }, validatorFinds: privateOfEvents },
  {
    route: "POST /events/import",
    // A newer copy of A's private event: an update of another organisation's event.
    request: ({ w }) => ({
      path: "/events/import",
      json: { Event: { uuid: w.a.privateEvent.uuid, info: "taken over by B", distribution: "3", timestamp: String(Math.floor(Date.now() / 1000)), Attribute: [] } },
    }),
    b: "denied", validator: { status: 200 },
  },
  { route: "GET /events/{event_uuid}", request: ({ w }) => ({ path: `/events/${w.a.privateEvent.uuid}` }), b: "hidden", validator: { status: 200 } },
  { route: "GET /events/{event_uuid}/export", request: ({ w }) => ({ path: `/events/${w.a.privateEvent.uuid}/export?format=misp` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /events/",
    // A uuid A's private event holds: refused as taken (409) for everyone, the administrator too;
    // any refusal tells that the uuid is taken, which a client-chosen uuid cannot avoid.
    request: ({ w }) => ({ path: "/events/", json: { info: "B's claim", uuid: w.a.privateEvent.uuid } }),
    b: "denied", also: [409], validator: { status: 409 },
  },
  { route: "PATCH /events/{event_uuid}", request: (ctx) => ({ path: `/events/${writeEvent(ctx)}`, json: { info: "renamed by B" } }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    route: "DELETE /events/{event_uuid}",
    request: async ({ w, validating }) => ({ path: `/events/${validating ? await w.throwaway.event() : w.a.privateEvent.uuid}` }),
    b: "hidden", validator: { status: 204 },
  },
  { route: "POST /events/{event_uuid}/publish", request: ({ w }) => ({ path: `/events/${w.a.privateEvent.uuid}/publish` }), b: "hidden", validator: { status: 200 } },
  { route: "POST /events/{event_uuid}/unpublish", request: ({ w }) => ({ path: `/events/${w.a.privateEvent.uuid}/unpublish` }), b: "hidden", validator: { status: 200 } },
  { route: "POST /events/{event_uuid}/tag/{tag}", request: (ctx) => ({ path: `/events/${writeEvent(ctx)}/tag/b-was-here` }), b: "hidden", override: onShared, validator: { status: 201 } },
  {
    route: "DELETE /events/{event_uuid}/tag/{tag}",
    request: async (ctx) => {
      const { w, validating } = ctx;
      if (!validating) return { path: `/events/${writeEvent(ctx)}/tag/${w.a.tag.name}` };
      const uuid = await w.throwaway.event();
      await w.call("aUser", "POST", `/events/${uuid}/tag/${w.a.tag.name}`);
      return { path: `/events/${uuid}/tag/${w.a.tag.name}` };
    },
    b: "hidden", override: onShared, validator: { status: 204 },
  },

  // ---- attributes ----
  {
    route: "GET /attributes/",
    request: ({ w }) => ({ path: `/attributes/?event_uuid=${w.a.sharedEvent.uuid}&size=100` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid],
  },
  { route: "GET /attributes/search", request: () => ({ path: "/attributes/search?query=*&size=100" }), b: "filtered", validator: { status: 200 }, validatorFinds: privateAttributes },
  { route: "GET /attributes/{attribute_uuid}", request: (ctx) => ({ path: `/attributes/${hiddenAttribute(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /attributes/",
    request: (ctx) => ({ path: "/attributes/", json: { event_uuid: writeEvent(ctx), type: "domain", value: `${ctx.w.unique("b")}.example.org` } }),
    b: "hidden", override: onShared, validator: { status: 201 },
  },
  {
    route: "PATCH /attributes/{attribute_uuid}",
    request: (ctx) => ({ path: `/attributes/${writeAttribute(ctx, ctx.w.a.privateAttribute.uuid)}`, json: { comment: "by B" } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    route: "DELETE /attributes/{attribute_uuid}",
    request: async (ctx) => ({ path: `/attributes/${ctx.validating ? await ctx.w.throwaway.attribute() : writeAttribute(ctx, ctx.w.a.privateAttribute.uuid)}` }),
    b: "hidden", override: onShared, validator: { status: 204 },
  },
  {
    route: "POST /attributes/{attribute_uuid}/tag/{tag}",
    request: (ctx) => ({ path: `/attributes/${writeAttribute(ctx, ctx.w.a.privateAttribute.uuid)}/tag/b-was-here` }),
    b: "hidden", override: onShared, validator: { status: 201 },
  },
  {
    route: "DELETE /attributes/{attribute_uuid}/tag/{tag}",
    request: async (ctx) => {
      const { w, validating } = ctx;
      if (!validating) return { path: `/attributes/${writeAttribute(ctx, w.a.privateAttribute.uuid)}/tag/${w.a.tag.name}` };
      const uuid = await w.throwaway.attribute();
      await w.call("aUser", "POST", `/attributes/${uuid}/tag/${w.a.tag.name}`);
      return { path: `/attributes/${uuid}/tag/${w.a.tag.name}` };
    },
    b: "hidden", override: onShared, validator: { status: 204 },
  },

  // ---- objects ----
  {
    route: "GET /objects/",
    request: ({ w }) => ({ path: `/objects/?event_uuid=${w.a.sharedEvent.uuid}&size=100` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateObject.uuid],
  },
  { route: "GET /objects/{object_uuid}", request: (ctx) => ({ path: `/objects/${hiddenObject(ctx)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /objects/",
    request: (ctx) => ({ path: "/objects/", json: { event_uuid: writeEvent(ctx), name: "domain-ip", attributes: [{ type: "domain", value: `${ctx.w.unique("b")}.example.org` }] } }),
    b: "hidden", override: onShared, validator: { status: 201 },
  },
  {
    route: "PATCH /objects/{object_uuid}",
    request: (ctx) => ({ path: `/objects/${writeObject(ctx, ctx.w.a.privateObject.uuid)}`, json: { comment: "by B", new_attributes: [{ type: "domain", value: `${ctx.w.unique("b")}.example.org` }] } }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    route: "DELETE /objects/{object_uuid}",
    request: async (ctx) => ({ path: `/objects/${ctx.validating ? await ctx.w.throwaway.object() : writeObject(ctx, ctx.w.a.privateObject.uuid)}` }),
    b: "hidden", override: onShared, validator: { status: 204 },
  },

  // ---- tags: definitions are instance-wide (A's tag name is listed to everyone, as in MISP); changing them needs tags:admin ----
  { route: "GET /tags/", request: ({ w }) => ({ path: `/tags/?filter=${w.tag}&size=100` }), b: "shared", validator: { status: 200 } },
  { route: "GET /tags/{tag_id}", request: ({ w }) => ({ path: `/tags/${w.a.tag.id}` }), b: "shared", validator: { status: 200 } },
  {
    route: "POST /tags/",
    // A tag in A's name: without tags:admin a tag names only its creator.
    request: ({ w }) => ({ path: "/tags/", json: { name: w.unique("b-tag"), org_id: w.a.org.id, user_id: w.users.aUser.id } }),
    b: "denied", also: [422], validator: { status: 201 },
  },
  { route: "PATCH /tags/{tag_id}", request: ({ w }) => ({ path: `/tags/${w.a.tag.id}`, json: { name: w.unique("renamed-by-b") } }), b: "denied", validator: { status: 200 } },
  {
    route: "DELETE /tags/{tag_id}",
    request: async ({ w, validating }) => ({ path: `/tags/${validating ? await w.throwaway.tag() : w.a.tag.id}` }),
    b: "denied", validator: { status: 204 },
  },

  // ---- sightings ----
  {
    route: "POST /sightings/",
    request: (ctx) => ({ path: "/sightings/", json: { attribute_uuid: hiddenAttribute(ctx), source: "B" } }),
    b: "hidden", validator: { status: 201 },
  },
  {
    route: "GET /sightings/",
    request: ({ w }) => ({ path: `/sightings/?attribute_uuid=${w.a.privateAttribute.uuid}&size=100` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sightingSource],
  },

  // ---- retention: instance-wide status and counts ----
  { route: "GET /events/retention/status", request: () => ({ path: "/events/retention/status" }), b: "shared", validator: { status: 200 } },
  { route: "GET /events/retention/preview", request: () => ({ path: "/events/retention/preview?period_days=30" }), b: "shared", validator: { status: 200 } },
];

const newer = () => String(Math.floor(Date.now() / 1000));
const ATTRIBUTE = "uuid value eventUuid objectUuid correlations { id source }";

export const eventsGraphql: GraphqlCase[] = [
  {
    field: "Query.events", scopes: ["events:read"],
    query: "{ events(size: 100) { items { uuid info attributeCount objectCount relatedEvents { uuid info } } } }",
    b: "filtered", validator: { status: 200 }, validatorFinds: privateOfEvents,
  },
  { field: "Query.event", scopes: ["events:read"], query: "query($u: String!) { event(uuid: $u) { uuid info } }", variables: ({ w }) => ({ u: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 } },
  { field: "Query.eventMispExport", scopes: ["events:read"], query: "query($u: String!) { eventMispExport(uuid: $u) }", variables: ({ w }) => ({ u: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 } },
  { field: "Query.searchEvents", scopes: ["events:read"], query: "{ searchEvents(query: \"*\", size: 100) { total hits { id source } } }", b: "filtered", validator: { status: 200 }, validatorFinds: privateOfEvents },
  {
    field: "Mutation.createEvent", scopes: ["events:create"],
    query: "mutation($u: String) { createEvent(uuid: $u, input: { info: \"B's claim\" }) { uuid } }",
    variables: ({ w }) => ({ u: w.a.privateEvent.uuid }),
    b: "denied", also: [409], validator: { status: 409 },
  },
  {
    field: "Mutation.importMispEvent", scopes: ["events:create"],
    query: "mutation($e: JSON!) { importMispEvent(event: $e) { created changed event { uuid } } }",
    variables: ({ w }) => ({ e: { Event: { uuid: w.a.privateEvent.uuid, info: "taken over by B", distribution: "3", timestamp: newer(), Attribute: [] } } }),
    b: "denied", validator: { status: 200 },
  },
  { field: "Mutation.updateEvent", scopes: ["events:update"], query: "mutation($u: String!) { updateEvent(uuid: $u, input: { info: \"renamed by B\" }) { uuid } }", variables: (ctx) => ({ u: writeEvent(ctx) }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    field: "Mutation.deleteEvent", scopes: ["events:delete"],
    query: "mutation($u: String!) { deleteEvent(uuid: $u) }",
    variables: async ({ w, validating }) => ({ u: validating ? await w.throwaway.event() : w.a.privateEvent.uuid }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.restoreEvent", scopes: ["events:delete"],
    query: "mutation($u: String!) { restoreEvent(uuid: $u) { uuid deleted } }",
    variables: async ({ w, validating }) => {
      if (!validating) return { u: w.a.privateEvent.uuid };
      const uuid = await w.throwaway.event();
      await w.call("aAdmin", "DELETE", `/events/${uuid}`);
      return { u: uuid };
    },
    b: "hidden", validator: { status: 200 },
  },
  { field: "Mutation.setEventPublished", scopes: ["events:publish"], query: "mutation($u: String!) { setEventPublished(uuid: $u, published: true) { uuid } }", variables: ({ w }) => ({ u: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 } },
  { field: "Mutation.tagEvent", scopes: ["events:tag"], query: "mutation($u: String!) { tagEvent(uuid: $u, tag: \"b-was-here\") }", variables: (ctx) => ({ u: writeEvent(ctx) }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    field: "Mutation.untagEvent", scopes: ["events:tag"],
    query: "mutation($u: String!, $t: String!) { untagEvent(uuid: $u, tag: $t) }",
    variables: async (ctx) => {
      const { w, validating } = ctx;
      if (!validating) return { u: writeEvent(ctx), t: w.a.tag.name };
      const uuid = await w.throwaway.event();
      await w.call("aUser", "POST", `/events/${uuid}/tag/${w.a.tag.name}`);
      return { u: uuid, t: w.a.tag.name };
    },
    b: "hidden", override: onShared, validator: { status: 200 },
  },

  {
    field: "Query.attributes", scopes: ["attributes:read"],
    query: `query($e: String) { attributes(eventUuid: $e, size: 100) { items { ${ATTRIBUTE} } } }`,
    variables: ({ w }) => ({ e: w.a.sharedEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid],
  },
  { field: "Query.attribute", scopes: ["attributes:read"], query: `query($u: String!) { attribute(uuid: $u) { ${ATTRIBUTE} } }`, variables: (ctx) => ({ u: hiddenAttribute(ctx) }), b: "hidden", validator: { status: 200 } },
  { field: "Query.attributeTypes", scopes: ["attributes:read"], query: "{ attributeTypes { name defaultCategory categories } }", b: "shared", validator: { status: 200 } },
  { field: "Query.attributeCategories", scopes: ["attributes:read"], query: "{ attributeCategories { name types } }", b: "shared", validator: { status: 200 } },
  { field: "Query.searchAttributes", scopes: ["attributes:read"], query: "{ searchAttributes(query: \"*\", size: 100) { total hits { id source } } }", b: "filtered", validator: { status: 200 }, validatorFinds: privateAttributes },
  {
    field: "Mutation.createAttribute", scopes: ["attributes:create"],
    query: "mutation($e: String!, $v: String!) { createAttribute(eventUuid: $e, input: { type: \"domain\", value: $v }) { uuid } }",
    variables: (ctx) => ({ e: writeEvent(ctx), v: `${ctx.w.unique("b")}.example.org` }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { field: "Mutation.updateAttribute", scopes: ["attributes:update"], query: "mutation($u: String!) { updateAttribute(uuid: $u, input: { comment: \"by B\" }) { uuid } }", variables: (ctx) => ({ u: writeAttribute(ctx, ctx.w.a.sharedPrivateAttribute.uuid) }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    field: "Mutation.deleteAttribute", scopes: ["attributes:delete"],
    query: "mutation($u: String!) { deleteAttribute(uuid: $u) }",
    variables: async (ctx) => ({ u: ctx.validating ? await ctx.w.throwaway.attribute() : writeAttribute(ctx, ctx.w.a.sharedPrivateAttribute.uuid) }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { field: "Mutation.tagAttribute", scopes: ["attributes:tag"], query: "mutation($u: String!) { tagAttribute(uuid: $u, tag: \"b-was-here\") }", variables: (ctx) => ({ u: writeAttribute(ctx, ctx.w.a.sharedPrivateAttribute.uuid) }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    field: "Mutation.untagAttribute", scopes: ["attributes:tag"],
    query: "mutation($u: String!, $t: String!) { untagAttribute(uuid: $u, tag: $t) }",
    variables: async (ctx) => {
      const { w, validating } = ctx;
      if (!validating) return { u: writeAttribute(ctx, w.a.sharedPrivateAttribute.uuid), t: w.a.tag.name };
      const uuid = await w.throwaway.attribute();
      await w.call("aUser", "POST", `/attributes/${uuid}/tag/${w.a.tag.name}`);
      return { u: uuid, t: w.a.tag.name };
    },
    b: "hidden", override: onShared, validator: { status: 200 },
  },

  {
    field: "Query.objects", scopes: ["objects:read"],
    query: `query($e: String) { objects(eventUuid: $e, size: 100) { items { uuid attributes { ${ATTRIBUTE} } } } }`,
    variables: ({ w }) => ({ e: w.a.sharedEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateObject.uuid],
  },
  { field: "Query.object", scopes: ["objects:read"], query: "query($u: String!) { object(uuid: $u) { uuid attributes { uuid value } } }", variables: (ctx) => ({ u: hiddenObject(ctx) }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.createObject", scopes: ["objects:create"],
    query: "mutation($e: String!, $v: String!) { createObject(eventUuid: $e, input: { name: \"domain-ip\" }, attributes: [{ type: \"domain\", value: $v }]) { uuid } }",
    variables: (ctx) => ({ e: writeEvent(ctx), v: `${ctx.w.unique("b")}.example.org` }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  { field: "Mutation.updateObject", scopes: ["objects:update"], query: "mutation($u: String!) { updateObject(uuid: $u, input: { comment: \"by B\" }) { uuid } }", variables: (ctx) => ({ u: writeObject(ctx, ctx.w.a.sharedPrivateObject.uuid) }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    field: "Mutation.deleteObject", scopes: ["objects:delete"],
    query: "mutation($u: String!) { deleteObject(uuid: $u) }",
    variables: async (ctx) => ({ u: ctx.validating ? await ctx.w.throwaway.object() : writeObject(ctx, ctx.w.a.sharedPrivateObject.uuid) }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },

  { field: "Query.tags", scopes: ["tags:read"], query: "query($f: String) { tags(filter: $f, size: 100) { items { id name orgId userId } } }", variables: ({ w }) => ({ f: w.tag }), b: "shared", validator: { status: 200 } },
  { field: "Query.tag", scopes: ["tags:read"], query: "query($id: Int!) { tag(id: $id) { id name } }", variables: ({ w }) => ({ id: w.a.tag.id }), b: "shared", validator: { status: 200 } },
  {
    field: "Query.tagSuggestions", scopes: ["tags:read"],
    query: "query($t: String!) { tagSuggestions(text: $t) { tagId name taxonomy machineTag { namespace predicate value } } }",
    variables: ({ w }) => ({ t: w.tag }), b: "shared", validator: { status: 200 },
  },
  {
    field: "Mutation.createTag", scopes: ["tags:create"],
    query: "mutation($i: TagInput!) { createTag(input: $i) { id } }",
    variables: ({ w }) => ({ i: { name: w.unique("b-tag"), orgId: w.a.org.id, userId: w.users.aUser.id } }),
    b: "denied", also: [422], validator: { status: 200 },
  },
  { field: "Mutation.updateTag", scopes: ["tags:update", "tags:admin"], query: "mutation($id: Int!, $n: String!) { updateTag(id: $id, input: { name: $n }) { id } }", variables: ({ w }) => ({ id: w.a.tag.id, n: w.unique("renamed-by-b") }), b: "denied", validator: { status: 200 } },
  {
    field: "Mutation.deleteTag", scopes: ["tags:delete", "tags:admin"],
    query: "mutation($id: Int!) { deleteTag(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.tag() : w.a.tag.id }),
    b: "denied", validator: { status: 200 },
  },

  {
    field: "Mutation.createSightings", scopes: ["sightings:create"],
    query: "mutation($u: String!) { createSightings(input: [{ attributeUuid: $u, source: \"B\" }]) { created } }",
    variables: (ctx) => ({ u: hiddenAttribute(ctx) }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Query.sightings", scopes: ["sightings:read"],
    query: "query($u: String) { sightings(attributeUuid: $u, size: 100) { total items { uuid source attributeUuid value } } }",
    variables: ({ w }) => ({ u: w.a.privateAttribute.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sightingSource],
  },

  { field: "Query.retentionStatus", scopes: ["events:read"], query: "{ retentionStatus { enabled periodDays } }", b: "shared", validator: { status: 200 } },
  { field: "Query.retentionPreview", scopes: ["settings:read"], query: "{ retentionPreview(periodDays: 30) { count } }", b: "shared", validator: { status: 200 } },
];
