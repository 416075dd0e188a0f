import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SIGHTING_TYPES, type SightingHit } from "../modules/sightings/index.ts";
import { toolResult } from "./results.ts";
import { MAX_ITEMS, oneOf, pageSummary, type ToolContext } from "./tool-kit.ts";

/** Attributes of an event whose sightings get_sightings reads: one sightings query each. */
const EVENT_ATTRIBUTES = MAX_ITEMS;
/** Sightings queries at once for one call: enough to be quick, few enough to leave the pool to others. */
const PARALLEL = 4;

interface SightingArgs {
  attribute_uuid?: string;
  event_uuid?: string;
  type?: (typeof SIGHTING_TYPES)[number];
  page: number;
  size: number;
}

const sightingOut = (h: SightingHit) => h._source;

/**
 * get_sightings. For an attribute, GET /sightings/?attribute_uuid= as is. For an event, the
 * sightings service has no event filter: the event's most recently changed attributes come from
 * the attributes index (the same search and access as search_attributes, objects' attributes
 * included), then each attribute's sightings from the service, merged newest first.
 */
export async function sightingsOf(args: SightingArgs, ctx: ToolContext): Promise<CallToolResult> {
  const { services, principal } = ctx;
  if (oneOf(args, ["attribute_uuid", "event_uuid"] as const) === "attribute_uuid") {
    // 404 for an attribute the caller may not read (the list alone would answer an empty page).
    const a = await services.attributes.get(principal, args.attribute_uuid!.toLowerCase());
    const page = await services.sightings.list(principal, { page: args.page, size: args.size, attributeUuid: a.uuid, type: args.type });
    return toolResult(pageSummary(`sightings of attribute ${a.uuid}`, page, page.results.length), {
      attribute_uuid: a.uuid,
      total: page.total,
      page: page.page,
      size: page.size,
      sightings: page.results.map(sightingOut),
    });
  }
  const event = await services.events.get(principal, args.event_uuid!.toLowerCase());
  const attributes = await services.search.search(principal, "attributes", {
    query: "*",
    filters: { event_uuid: event.uuid },
    page: 1,
    size: EVENT_ATTRIBUTES,
    sortBy: "@timestamp",
    sortOrder: "desc",
    includeDeleted: false,
  });
  const uuids = attributes.hits.map((h) => String(h.source.uuid));
  const perAttribute: { total: number; results: SightingHit[] }[] = [];
  for (let i = 0; i < uuids.length; i += PARALLEL) {
    const batch = uuids.slice(i, i + PARALLEL).map((attributeUuid) => services.sightings.list(principal, { page: 1, size: args.size, attributeUuid, type: args.type }));
    perAttribute.push(...(await Promise.all(batch)));
  }
  const total = perAttribute.reduce((n, p) => n + p.total, 0);
  const newest = perAttribute
    .flatMap((p) => p.results.map(sightingOut))
    .sort((x, y) => y.timestamp - x.timestamp)
    .slice(0, args.size);
  return toolResult(`${total} sightings on ${uuids.length} of the event's ${attributes.total} attributes; ${newest.length} shown, newest first.`, {
    event_uuid: event.uuid,
    attributes_total: attributes.total,
    attributes_read: uuids.length,
    total,
    sightings: newest,
  });
}
