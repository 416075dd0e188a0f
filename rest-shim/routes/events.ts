import { z } from "zod";
import { defineRoute } from "../route.ts";
import { pageQueryFields, queryBool } from "../schemas.ts";
import { ValidationIssueSchema, messageSchema, named, wireContract } from "../contract.ts";
import { EventDetailSchema, EventPageSchema, EventSchema, eventOut, eventReadOut } from "../serializers/events.ts";
import { errors } from "../../src/platform/errors.ts";
import { MAX_TAG_FILTERS, calendarDate, eventCreateContract, eventUpdateContract } from "../../src/modules/events/index.ts";
import { tagName } from "../../src/modules/tags/index.ts";

const uuidParam = z.object({ event_uuid: z.uuid().transform((u) => u.toLowerCase()) }).strict();
const tagParams = z.object({ event_uuid: z.uuid().transform((u) => u.toLowerCase()), tag: tagName }).strict();
/** The peer's dates: YYYY-MM-DD, or the same at midnight as a date-time. */
const dateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T00:00:00(\.0+)?Z?)?$/, "must be a date YYYY-MM-DD")
  .transform((s) => s.slice(0, 10))
  .pipe(calendarDate);

const eventCreateWire = wireContract(eventCreateContract, { codecs: { date: dateString.optional() } });
const eventUpdateWire = wireContract(eventUpdateContract, { codecs: { date: dateString.optional() } });

const EventImportSchema = named(
  "EventImport",
  EventSchema.extend({
    import: z.object({
      created: z.boolean().describe("A new event (201); false: an existing one updated or unchanged (200)"),
      changed: z.boolean(),
      attributes: z.object({ created: z.int(), updated: z.int(), unchanged: z.int() }),
      objects: z.object({ created: z.int(), updated: z.int(), unchanged: z.int() }),
      skipped: z.array(ValidationIssueSchema).describe("Invalid attributes left out (on_invalid=skip), each with where and why"),
    }),
  }),
  "The imported event and what the import did",
);

const MispEventSchema = named("MispEvent", z.object({ Event: z.record(z.string(), z.unknown()) }), "An event in MISP JSON form");

/** A MISP event of 100 000 attributes is about 30 MB of JSON; 50 MB and more is refused (413). */
export const IMPORT_BODY_LIMIT = 48 * 1024 * 1024;

export const eventRoutes = [
  defineRoute({
    method: "GET", path: "/events/", operationId: "listEvents", summary: "List events the caller may read, newest change first (paginated); soft-deleted ones too unless deleted=false", tag: "events",
    scopes: ["events:read"], status: 200, response: EventPageSchema,
    query: z
      .object({
        ...pageQueryFields,
        info: z.string().max(1000).optional(),
        uuid: z.uuid().optional(),
        published: queryBool.optional(),
        deleted: queryBool.optional(),
        tag: z.union([tagName, z.array(tagName).max(MAX_TAG_FILTERS)]).transform((v) => (Array.isArray(v) ? v : [v])).optional()
          .describe(`Only events carrying every one of these tags (exact names, repeat the parameter, at most ${MAX_TAG_FILTERS})`),
        org_id: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe("Only events owned by this organisation"),
        include_attributes: queryBool.optional(),
      })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const filter = { info: query.info, uuid: query.uuid?.toLowerCase(), published: query.published, deleted: query.deleted, tags: query.tag, orgId: query.org_id };
      const page = await services.events.list(principal, filter, query);
      return { ...page, items: page.items.map(eventOut) };
    },
  }),
  defineRoute({
    method: "POST", path: "/events/import", operationId: "importEvent", summary: "Import an event in MISP JSON form ({\"Event\": {...}}); 201 created, 200 updated or unchanged", tag: "events",
    scopes: ["events:create"], status: 201, otherStatuses: [200], response: EventImportSchema, bodyLimit: IMPORT_BODY_LIMIT,
    // on_invalid=skip is MISP's behaviour: invalid attributes are dropped and listed, the rest is stored.
    query: z.object({ on_invalid: z.enum(["reject", "skip"]).default("reject") }).strict(),
    body: z.unknown(),
    handler: async ({ principal, query, body, services, setStatus }) => {
      const { result, skipped, event } = await services.events.importMisp(principal, body, { skipInvalidAttributes: query.on_invalid === "skip" });
      if (!result.created) setStatus(200);
      return {
        ...eventOut(event),
        import: { created: result.created, changed: result.changed, attributes: result.attributes, objects: result.objects, skipped },
      };
    },
  }),
  defineRoute({
    method: "GET", path: "/events/{event_uuid}", operationId: "getEvent", summary: "Get an event", tag: "events",
    scopes: ["events:read"], params: uuidParam, status: 200, response: EventDetailSchema,
    handler: async ({ principal, params, services }) => {
      const event = await services.events.get(principal, params.event_uuid);
      const related = await services.correlations.relatedEvents(principal, [event.uuid]);
      return eventReadOut(event, related.get(event.uuid) ?? []);
    },
  }),
  defineRoute({
    method: "GET", path: "/events/{event_uuid}/export", operationId: "exportEvent", summary: "Export an event in MISP JSON form (format=misp)", tag: "events",
    scopes: ["events:read"], params: uuidParam, status: 200, response: MispEventSchema,
    query: z.object({ format: z.enum(["misp", "json"]).default("misp") }).strict(),
    handler: ({ principal, params, services }) => services.events.exportMisp(principal, params.event_uuid),
  }),
  defineRoute({
    method: "POST", path: "/events/", operationId: "createEvent", summary: "Create an event", tag: "events",
    scopes: ["events:create"], status: 201, response: EventSchema,
    body: eventCreateWire.object,
    handler: async ({ principal, body, services }) =>
      eventOut(await services.events.create(principal, eventCreateWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/events/{event_uuid}", operationId: "updateEvent", summary: "Update an event; {\"deleted\": false} restores a soft-deleted one, true soft-deletes it (both need events:delete)", tag: "events",
    scopes: ["events:update"], params: uuidParam, status: 200, response: EventSchema,
    body: eventUpdateWire.object,
    handler: async ({ principal, params, body, services }) => {
      if (Object.keys(body).length === 0) throw errors.invalidField(["body"], "Nothing to update");
      return eventOut(await services.events.update(principal, params.event_uuid, eventUpdateWire.fromWire(body)));
    },
  }),
  defineRoute({
    method: "DELETE", path: "/events/{event_uuid}", operationId: "deleteEvent", summary: "Soft-delete an event (deleted = true: readable, restorable by PATCH {\"deleted\": false}, left out of search, hunts and correlations); force=true deletes it for good with its attributes, objects and sightings", tag: "events",
    scopes: ["events:delete"], params: uuidParam, status: 204,
    query: z.object({ force: queryBool.default(false) }).strict(),
    handler: ({ principal, params, query, services }) => services.events.delete(principal, params.event_uuid, { force: query.force }),
  }),
  defineRoute({
    method: "POST", path: "/events/{event_uuid}/publish", operationId: "publishEvent", summary: "Publish an event", tag: "events",
    scopes: ["events:publish"], params: uuidParam, status: 200, response: messageSchema,
    handler: async ({ principal, params, services }) => {
      await services.events.setPublished(principal, params.event_uuid, true);
      return { message: `Event ${params.event_uuid} has been published.` };
    },
  }),
  defineRoute({
    method: "POST", path: "/events/{event_uuid}/unpublish", operationId: "unpublishEvent", summary: "Unpublish an event", tag: "events",
    scopes: ["events:publish"], params: uuidParam, status: 200, response: messageSchema,
    handler: async ({ principal, params, services }) => {
      await services.events.setPublished(principal, params.event_uuid, false);
      return { message: `Event ${params.event_uuid} has been unpublished.` };
    },
  }),
  defineRoute({
    method: "POST", path: "/events/{event_uuid}/tag/{tag}", operationId: "tagEvent", summary: "Tag an event (the tag is created when missing)", tag: "events",
    scopes: ["events:tag"], params: tagParams, status: 201, emptyBody: true,
    handler: async ({ principal, params, services }) => {
      await services.events.tag(principal, params.event_uuid, params.tag);
      return undefined; // the peer answers 201 with an empty body
    },
  }),
  defineRoute({
    method: "DELETE", path: "/events/{event_uuid}/tag/{tag}", operationId: "untagEvent", summary: "Remove a tag from an event", tag: "events",
    scopes: ["events:tag"], params: tagParams, status: 204,
    handler: ({ principal, params, services }) => services.events.untag(principal, params.event_uuid, params.tag),
  }),
];
