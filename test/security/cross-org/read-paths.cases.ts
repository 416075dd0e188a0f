import { createUser } from "../../support/fixtures.ts";
import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * Read paths beside the one-row-per-route matrix: A's shared event, which B reads without its
 * distribution-0 attribute and object (in lists, counts, exports, correlations and related
 * events), and B's own event, whose correlations and related events must not name A's private
 * ones (its value also sits in A's private event). The validator sees A's hidden parts through
 * the same requests. Then writes about the caller's own things whose reach must stop at B.
 */
const sharedCounts = (attributes: number, objects: number) => `${attributes} standalone attribute(s) and ${objects} object(s)`;
/** B sees one standalone attribute and one object of A's shared event (A sees two of each). */
const countsOf = (got: { attributes: number; objects: number }) =>
  got.attributes === 1 && got.objects === 1 ? null : `counts ${sharedCounts(got.attributes, got.objects)} of A's shared event, expected ${sharedCounts(1, 1)}`;

/**
 * B's event shares one pair with A's shared event that B may see (the shared attribute's value);
 * its network also holds A's distribution-0 address there (a cidr pair B may not see).
 */
function onePair({ w, actor }: CaseContext, n: number | undefined): string | null {
  // Related events need correlations:read (B's narrow key lists none).
  if (!w.holds(actor, ["correlations:read"])) return n === undefined ? null : `${n} pairs with A's shared event without correlations:read`;
  return n === 1 ? null : `${n} pairs with A's shared event, expected the 1 B may see`;
}

/** B's own hunt (A's user's, for the validator) over A's shared event: B's hits leave out A's hidden attributes. */
async function ownHunt({ w, actor, validating }: CaseContext): Promise<number> {
  if (!validating && !w.holds(actor, ["hunts:create", "hunts:run"])) return w.a.hunt.id;
  const owner = validating ? "aUser" : actor;
  return (await w.call(owner, "POST", "/hunts/", { name: w.unique("hunt over A's shared event"), query: `event_uuid:${w.a.sharedEvent.uuid}` })).id;
}

export const readPathsRest: RestCase[] = [
  {
    route: "GET /events/{event_uuid}",
    request: ({ w }) => ({ path: `/events/${w.a.sharedEvent.uuid}` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (e) => countsOf({ attributes: e.attribute_count, objects: e.object_count }),
  },
  {
    route: "GET /events/{event_uuid}/export",
    request: ({ w }) => ({ path: `/events/${w.a.sharedEvent.uuid}/export?format=misp` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid, w.a.sharedPrivateObject.uuid],
    bCheck: (e) => countsOf({ attributes: e.Event.Attribute.length, objects: e.Event.Object.length }),
  },
  { route: "GET /objects/{object_uuid}", request: ({ w }) => ({ path: `/objects/${w.a.sharedObject.uuid}` }), b: "filtered", validator: { status: 200 } },
  {
    route: "GET /attributes/{attribute_uuid}",
    request: ({ w }) => ({ path: `/attributes/${w.a.sharedAttribute.uuid}` }),
    b: "filtered", validator: { status: 200 },
  },
  {
    route: "GET /events/{event_uuid}",
    request: ({ w }) => ({ path: `/events/${w.bEvent.uuid}` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (e, ctx) => onePair(ctx, e.related_events.find((r: { uuid: string }) => r.uuid === ctx.w.a.sharedEvent.uuid)?.correlation_count),
  },
  {
    route: "GET /correlations/events/{source_event_uuid}/top",
    request: ({ w }) => ({ path: `/correlations/events/${w.bEvent.uuid}/top` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (top, ctx) => onePair(ctx, top.find((r: { key: string }) => r.key === ctx.w.a.sharedEvent.uuid)?.doc_count),
  },
  {
    route: "GET /correlations/",
    request: ({ w }) => ({ path: `/correlations/?source_event_uuid=${w.bEvent.uuid}&size=100` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute2.uuid, w.a.sharedHiddenIp.uuid],
  },
  {
    route: "GET /attributes/search",
    request: ({ w }) => ({ path: `/attributes/search?size=100&query=${encodeURIComponent(`value:"${w.a.sharedAttribute.value}"`)}` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute2.uuid],
  },
  { route: "GET /sightings/", request: () => ({ path: "/sightings/?size=100" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sightingSource] },
  {
    route: "POST /hunts/{hunt_id}/run",
    request: async (ctx) => ({ path: `/hunts/${await ownHunt(ctx)}/run` }),
    b: "filtered", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid],
  },

  // ---- the caller's own things, whose reach must stop at B (A's digest is compared afterwards) ----
  {
    route: "POST /sightings/",
    // By value: every attribute with that value the caller may read gets one; A's hidden ones never
    // do (a sighting of B's is not in A's digest, so this row counts them).
    request: ({ w }) => ({ path: "/sightings/", json: { value: w.a.privateAttribute.value, source: "B by value" } }),
    b: "own", ok: 201, validator: { status: 201 },
    bCheck: async (_body, { w }) => {
      const [row] = await w.q<{ n: number }>(
        "SELECT count(*)::int AS n FROM sightings s JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = ANY($1) AND s.org_id = $2",
        [[w.a.privateAttribute.uuid, w.a.sharedPrivateAttribute.uuid], w.orgB.id],
      );
      return row.n === 0 ? null : `${row.n} sighting(s) of B's on A's hidden attributes`;
    },
  },
  {
    route: "PATCH /users/{user_id}",
    // Moving a user of B's into A: an org admin never moves a user to another organisation.
    request: async ({ w }) => ({ path: `/users/${(await createUser(w.app, w.site, 3, w.orgB.id)).id}`, json: { org_id: w.a.org.id } }),
    b: "denied", validator: { status: 200 },
  },
  { route: "PATCH /notifications/{notification_id}/read", request: () => ({ path: "/notifications/all/read" }), b: "own", validator: { as: "aUser", status: 200 } },
  { route: "DELETE /notifications/{notification_id}", request: () => ({ path: "/notifications/all" }), b: "own", validator: { as: "aUser", status: 200 } },
];

const ATTRIBUTE = "uuid value correlations { id source }";

export const readPathsGraphql: GraphqlCase[] = [
  {
    field: "Query.event", scopes: ["events:read"],
    query: "query($u: String!) { event(uuid: $u) { uuid attributeCount objectCount relatedEvents { uuid info } } }",
    variables: ({ w }) => ({ u: w.a.sharedEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (r) => countsOf({ attributes: r.data.event.attributeCount, objects: r.data.event.objectCount }),
  },
  { field: "Query.eventMispExport", scopes: ["events:read"], query: "query($u: String!) { eventMispExport(uuid: $u) }", variables: ({ w }) => ({ u: w.a.sharedEvent.uuid }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid] },
  { field: "Query.object", scopes: ["objects:read"], query: `query($u: String!) { object(uuid: $u) { uuid attributes { ${ATTRIBUTE} } } }`, variables: ({ w }) => ({ u: w.a.sharedObject.uuid }), b: "filtered", validator: { status: 200 } },
  {
    field: "Query.attribute", scopes: ["attributes:read"],
    query: `query($u: String!) { attribute(uuid: $u) { ${ATTRIBUTE} } }`,
    variables: ({ w }) => ({ u: w.a.sharedAttribute.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute2.uuid],
  },
  {
    field: "Query.event", scopes: ["events:read"],
    query: "query($u: String!) { event(uuid: $u) { uuid relatedEvents { uuid info correlationCount } } }",
    variables: ({ w }) => ({ u: w.bEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (r, ctx) => onePair(ctx, r.data.event.relatedEvents.find((e: { uuid: string }) => e.uuid === ctx.w.a.sharedEvent.uuid)?.correlationCount),
  },
  {
    field: "Event.attributes", scopes: ["events:read", "attributes:read"],
    query: `query($u: String!) { event(uuid: $u) { uuid attributes(deleted: null) { ${ATTRIBUTE} tags { name } } } }`,
    variables: ({ w }) => ({ u: w.a.sharedEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid],
    bCheck: (r) => (r.data.event.attributes.length === 1 ? null : `${r.data.event.attributes.length} standalone attributes of A's shared event, expected the 1 B may see`),
  },
  {
    // The batched path: one read for the attributes of every event of the page.
    field: "Event.attributes", scopes: ["events:read", "attributes:read"],
    query: "{ events(size: 50) { items { uuid info attributes(deleted: null, limit: 20) { uuid value tags { name } } } } }",
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid, w.a.privateEvent.uuid],
  },
  {
    field: "Query.attributes", scopes: ["attributes:read"],
    query: `query($e: String) { attributes(eventUuid: $e, size: 100) { items { ${ATTRIBUTE} } } }`,
    variables: ({ w }) => ({ e: w.bEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute2.uuid],
  },
];
