import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { hasScope } from "../auth/principal.ts";
import { eventOut, relatedEventOut } from "../../rest-shim/serializers/events.ts";
import { attributeOut } from "../../rest-shim/serializers/attributes.ts";
import { objectOut } from "../../rest-shim/serializers/objects.ts";
import { toolResult } from "./results.ts";
import { UUID, type ToolContext } from "./tool-kit.ts";

/** Attributes outside objects per get_event page. */
export const EVENT_ATTRIBUTES = 100;
/** Objects per get_event page, each with at most OBJECT_ATTRIBUTES of its attributes. */
export const EVENT_OBJECTS = 20;
export const OBJECT_ATTRIBUTES = 20;
/** Events listed as related (most correlating pairs first). */
export const RELATED_EVENTS = 20;
/** Galaxy clusters listed over all the event's galaxies. */
export const GALAXY_CLUSTERS = 50;

const pageOf = (what: string, per: number) =>
  z.number().int().min(1).max(10_000).default(1).describe(`Page of the event's ${what}, ${per} per page (default 1).`);

export const getEventShape = {
  event_uuid: UUID,
  attribute_page: pageOf("attributes outside objects", EVENT_ATTRIBUTES),
  object_page: pageOf("objects", EVENT_OBJECTS),
};

interface EventArgs {
  event_uuid: string;
  attribute_page: number;
  object_page: number;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * The MISP Galaxy blocks an event carries (as imported), cut to what a model needs to name them:
 * each galaxy with its clusters' value, uuid, tag name and description (no meta: refs, synonyms
 * and the like are for search_galaxy), at most GALAXY_CLUSTERS clusters in all.
 */
function galaxiesOut(galaxies: unknown[]) {
  let left = GALAXY_CLUSTERS;
  return galaxies.filter(isRecord).map((g) => {
    const clusters = Array.isArray(g.GalaxyCluster) ? g.GalaxyCluster.filter(isRecord) : [];
    const shown = clusters.slice(0, left);
    left -= shown.length;
    return {
      uuid: text(g.uuid),
      name: text(g.name),
      type: text(g.type),
      cluster_total: clusters.length,
      clusters: shown.map((c) => ({ uuid: text(c.uuid), value: text(c.value), tag_name: text(c.tag_name), description: text(c.description) })),
    };
  });
}

const next = (total: number, page: number, per: number) => (page * per < total ? page + 1 : null);

/**
 * get_event: the event as GET /events/{uuid} reads it (retention badge, tags, related events from
 * the correlations service), one page of its attributes outside objects (the attributes service),
 * one page of its objects with their attributes (the objects service, when the caller may read
 * objects) and its galaxies. Every read goes through its service: what the caller may not read
 * (another organisation's distribution-0 attribute in a shared event) is not there.
 */
export async function eventOf(args: EventArgs, { services, principal }: ToolContext): Promise<CallToolResult> {
  const event = await services.events.get(principal, args.event_uuid.toLowerCase());
  const readsObjects = hasScope(principal, "objects:read");
  const [attributes, objects, related] = await Promise.all([
    services.attributes.list(principal, { eventUuid: event.uuid, deleted: false }, { page: args.attribute_page, size: EVENT_ATTRIBUTES }),
    readsObjects ? services.objects.list(principal, { eventUuid: event.uuid }, { page: args.object_page, size: EVENT_OBJECTS }) : null,
    services.correlations.relatedEvents(principal, [event.uuid], RELATED_EVENTS),
  ]);
  const { attributes: _none, objects: _noObjects, ...fields } = eventOut(event);
  const relatedEvents = (related.get(event.uuid) ?? []).map(relatedEventOut);
  const objectsOut = objects?.items.map((o) => {
    const { attributes: all, ...rest } = objectOut(o);
    return { ...rest, attribute_total: all.length, attributes: all.slice(0, OBJECT_ATTRIBUTES) };
  });
  const nextAttributes = next(attributes.total, attributes.page, EVENT_ATTRIBUTES);
  const nextObjects = objects ? next(objects.total, objects.page, EVENT_OBJECTS) : null;
  const summary =
    `Event ${event.uuid}: ${attributes.total} attributes outside objects (page ${attributes.page} holds ${attributes.items.length}` +
    `${nextAttributes ? `; next: attribute_page ${nextAttributes}` : ""}), ` +
    (objects ? `${objects.total} objects (page ${objects.page} holds ${objects.items.length}${nextObjects ? `; next: object_page ${nextObjects}` : ""}), ` : "objects not shown (needs objects:read), ") +
    `${event.tags.length} tags, ${relatedEvents.length} related events.`;
  return toolResult(summary, {
    event: fields,
    galaxies: galaxiesOut(event.galaxies),
    related_events: relatedEvents,
    attribute_total: attributes.total,
    attribute_page: attributes.page,
    next_attribute_page: nextAttributes,
    attributes: attributes.items.map((a) => attributeOut(a)),
    ...(objects && objectsOut
      ? { object_total: objects.total, object_page: objects.page, next_object_page: nextObjects, objects: objectsOut }
      : { object_total: null, objects: null, objects_omitted: "your role lacks objects:read" }),
  });
}
