import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { authorize, requireUser } from "../../auth/principal.ts";
import { mapSubscription } from "../../platform/pubsub.ts";
import type { FollowList } from "./notification-rules.ts";
import { notificationsTopic } from "./notifier.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { NOTIFICATION_DOC, NOTIFICATION_TYPES_DOC } from "./notifications.docs.ts";

/**
 * A notification's payload, typed per kind. Each field reads its snake_case key of the stored
 * payload (the REST answer's `payload`); the kind comes from the notification's type.
 */
type Payload = Record<string, unknown>;
const text = (p: Payload, key: string) => (typeof p[key] === "string" ? (p[key] as string) : "");
const maybeText = (p: Payload, key: string) => (typeof p[key] === "string" && p[key] !== "" ? (p[key] as string) : null);

/** Fields of a payload kind: camelCase name, snake_case key, description; all strings (null when absent or empty if nullable). */
function payloadType(name: string, description: string, fields: Record<string, [key: string, doc: string, nullable?: boolean]>) {
  return builder.objectRef<Payload>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(fields).map(([field, [key, doc, nullable]]) => [
          field,
          nullable
            ? t.string({ nullable: true, description: `${doc} (payload.${key})`, resolve: (p) => maybeText(p, key) })
            : t.string({ description: `${doc} (payload.${key})`, resolve: (p) => text(p, key) }),
        ]),
      ),
  });
}

const EventPayload = payloadType("EventNotificationPayload", "An event was created, updated or deleted (types event.*, organisation.event.*)", {
  eventUuid: ["event_uuid", "UUID of the event"],
  eventName: ["event_name", "The event's title (its info)"],
  organisationUuid: ["organisation_uuid", "UUID of the event's creating organisation"],
  organisationName: ["organisation_name", "Name of the event's creating organisation"],
});
const AttributePayload = payloadType("AttributeNotificationPayload", "An attribute was created, updated or deleted (types attribute.*, event.attribute.*, object.attribute.created)", {
  eventUuid: ["event_uuid", DOC.eventUuid],
  eventTitle: ["event_title", "The event's title (its info)"],
  attributeUuid: ["attribute_uuid", DOC.attributeUuid],
  attributeValue: ["attribute_value", "The attribute's value, whole"],
  attributeType: ["attribute_type", "The attribute's MISP type"],
  objectUuid: ["object_uuid", "UUID of the object holding it; null for a standalone attribute", true],
});
const ObjectPayload = payloadType("ObjectNotificationPayload", "A MISP object was created or updated (types object.*, event.object.*)", {
  eventUuid: ["event_uuid", DOC.eventUuid],
  eventTitle: ["event_title", "The event's title (its info)"],
  // Nullable as AttributeNotificationPayload's is: fields of one name in a union's members must agree.
  objectUuid: ["object_uuid", "UUID of the object (always given here; nullable as in AttributeNotificationPayload)", true],
  objectName: ["object_name", "The object's template name (for example domain-ip)"],
});
const SightingPayload = payloadType("SightingNotificationPayload", "An attribute was sighted (type attribute.sighting.created)", {
  sightingValue: ["sighting_value", "The sighted value"],
  sightingType: ["sighting_type", "The kind of sighting: sighting, false-positive or expiration"],
  organisation: ["organisation", "The sighting organisation's name"],
  timestamp: ["timestamp", `When it was seen: ${DOC.epochSeconds}, as a string`],
  attributeType: ["attribute_type", "The attribute's MISP type"],
  attributeUuid: ["attribute_uuid", DOC.attributeUuid],
  eventUuid: ["event_uuid", DOC.eventUuid],
});
const CorrelationPayload = payloadType("CorrelationNotificationPayload", "A followed attribute got a new correlation, seen from its side: it is the source (type attribute.correlation.created)", {
  sourceAttributeUuid: ["source_attribute_uuid", "UUID of the followed attribute"],
  sourceEventUuid: ["source_event_uuid", "UUID of its event"],
  targetAttributeUuid: ["target_attribute_uuid", "UUID of the attribute it correlates with"],
  targetEventUuid: ["target_event_uuid", "UUID of that attribute's event"],
  targetAttributeType: ["target_attribute_type", "That attribute's MISP type"],
  targetAttributeValue: ["target_attribute_value", "That attribute's value"],
  matchType: ["match_type", "How they match: term, cidr or composite"],
  value: ["value", "The value they share"],
});

const HuntPayload = builder.objectRef<Payload>("HuntNotificationPayload").implement({
  description: "A hunt's result changed (types hunt.result.first_run, hunt.result.changed)",
  fields: (t) => ({
    huntId: t.int({ description: "Numeric id of the hunt (payload.hunt_id)", resolve: (p) => Number(p.hunt_id) }),
    huntName: t.string({ description: "The hunt's name (payload.hunt_name)", resolve: (p) => text(p, "hunt_name") }),
    total: t.int({ description: "Matches of this run (payload.total)", resolve: (p) => Number(p.total ?? 0) }),
    previousTotal: t.int({ nullable: true, description: "Matches of the previous successful run; null on a first run (payload.previous_total)", resolve: (p) => (typeof p.previous_total === "number" ? p.previous_total : null) }),
    newHits: t.stringList({ description: "Keys of the new hits (uuids, CVE ids, rule URLs), the first ones only (payload.new_hits)", resolve: (p) => (Array.isArray(p.new_hits) ? p.new_hits.map(String) : []) }),
    newHitCount: t.int({ description: "Number of new hits in all (payload.new_hit_count)", resolve: (p) => Number(p.new_hit_count ?? 0) }),
  }),
});

const KIND = { event: EventPayload, attribute: AttributePayload, object: ObjectPayload, sighting: SightingPayload, correlation: CorrelationPayload, hunt: HuntPayload } as const;

/** Which payload a notification type carries (the types of notification-rules.ts and hunt alerts). */
function payloadKind(type: string): keyof typeof KIND {
  if (type.startsWith("hunt.")) return "hunt";
  if (type === "attribute.sighting.created") return "sighting";
  if (type === "attribute.correlation.created") return "correlation";
  if (type.startsWith("event.attribute.") || type.startsWith("attribute.") || type === "object.attribute.created") return "attribute";
  if (type.startsWith("event.object.") || type.startsWith("object.")) return "object";
  return "event";
}

const KIND_KEY = Symbol("kind");
type KindedPayload = Payload & { [KIND_KEY]: keyof typeof KIND };

const NotificationPayload = builder.unionType("NotificationPayload", {
  description: "What a notification says, by its type: the REST answer's payload object with camelCase fields",
  types: Object.values(KIND),
  resolveType: (p) => KIND[(p as KindedPayload)[KIND_KEY]],
});

/** A notification row (the service loads the caller's own only, with the selection's query). */
const NotificationType = builder.prismaObject("Notification", {
  description: NOTIFICATION_TYPES_DOC.Notification,
  fields: (t) => ({
    id: t.exposeInt("id", { description: NOTIFICATION_DOC.id }),
    type: t.exposeString("type", { description: NOTIFICATION_DOC.type }),
    entityType: t.exposeString("entityType", { description: `${NOTIFICATION_DOC.entity_type} (REST entity_type)` }),
    entityUuid: t.exposeString("entityUuid", { nullable: true, description: `${NOTIFICATION_DOC.entity_uuid} (REST entity_uuid)` }),
    read: t.exposeBoolean("read", { description: NOTIFICATION_DOC.read }),
    payload: t.field({
      type: NotificationPayload,
      description: `${NOTIFICATION_DOC.payload}: typed by kind (REST payload, snake_case)`,
      resolve: (n) => ({ ...(n.payload as Payload), [KIND_KEY]: payloadKind(n.type) }) as KindedPayload,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
  }),
});

const Page = pageType("NotificationPage", NotificationType, "your notifications");

const FollowListEnum = builder.enumType("FollowList", {
  description: "A follow list of your notification settings",
  values: enumValues({
    events: "Events: their changes and their attributes' and objects'",
    attributes: "Attributes: their changes, sightings and correlations",
    objects: "MISP objects: their changes and new attributes",
    organisations: "Organisations: the events they create and change",
  }),
});

const NOTIFICATION_ID = "A notification id, or all for every one of yours";


builder.queryFields((t) => ({
  notifications: t.field({
    extensions: cost.page("size"),
    type: Page,
    description: "Your notifications, newest first",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 50, description: PAGE_DOC.size(50) }),
      type: t.arg.string({ description: "Only this type (exact)" }),
      read: t.arg.boolean({ description: "Only read (true) or unread (false) ones" }),
      filter: t.arg.string({ description: "Part of the type, case-insensitive" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.notifications.list(
        caller(ctx),
        { type: a.type ?? undefined, read: a.read ?? undefined, filter: a.filter ?? undefined },
        checkPageSize(a, 50),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      ),
  }),
  unreadNotificationCount: t.int({ description: "How many of your notifications are unread", resolve: (_r, _a, ctx) => ctx.services.notifications.unreadCount(caller(ctx)) }),
}));

builder.mutationFields((t) => ({
  markNotificationRead: t.boolean({
    description: "Mark one notification read, or all of yours with the id `all`; true when done",
    args: { id: t.arg.string({ required: true, description: NOTIFICATION_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.notifications.markRead(caller(ctx), a.id);
      return true;
    },
  }),
  deleteNotification: t.boolean({
    description: "Delete one notification, or all of yours with the id `all`; true when done",
    args: { id: t.arg.string({ required: true, description: NOTIFICATION_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.notifications.delete(caller(ctx), a.id);
      return true;
    },
  }),
  unfollowNotification: t.string({
    description: "Stop following what the notification is about and delete it: success, or error for hunt notifications",
    args: { id: t.arg.int({ required: true, description: "Numeric id of the notification" }) },
    resolve: async (_r, a, ctx) => (await ctx.services.notifications.unfollow(caller(ctx), a.id)).status,
  }),
  follow: t.stringList({
    description: "Follow a uuid (it need not exist yet); returns the list",
    args: { list: t.arg({ type: FollowListEnum, required: true, description: "The list to add it to" }), uuid: t.arg.string({ required: true, description: "What to follow: an event, attribute, object or organisation UUID" }) },
    resolve: (_r, a, ctx) => ctx.services.notifications.follow(caller(ctx), a.list as FollowList, a.uuid, true),
  }),
  unfollow: t.stringList({
    description: "Stop following a uuid; returns the list",
    args: { list: t.arg({ type: FollowListEnum, required: true, description: "The list to remove it from" }), uuid: t.arg.string({ required: true, description: "The UUID to stop following" }) },
    resolve: (_r, a, ctx) => ctx.services.notifications.follow(caller(ctx), a.list as FollowList, a.uuid, false),
  }),
}));

builder.subscriptionFields((t) => ({
  notificationCreated: t.field({
    type: NotificationType,
    description: "Your new notifications as they are created, from any process",
    subscribe: (_r, _a, ctx) => {
      const p = caller(ctx);
      authorize(p, "notifications:read");
      requireUser(p);
      const messages = ctx.pubsub.subscribe(notificationsTopic(p.userId)) as AsyncIterator<{ id?: number }> & { return(): Promise<IteratorResult<{ id?: number }>> };
      return mapSubscription(messages, async (m) => (typeof m.id === "number" ? ((await ctx.services.notifications.get(p, m.id).catch(() => null)) ?? undefined) : undefined));
    },
    resolve: (n) => n,
  }),
  unreadNotificationCount: t.int({
    description: "Your unread count: now, then after every change",
    subscribe: (_r, _a, ctx) => {
      const p = caller(ctx);
      authorize(p, "notifications:read");
      requireUser(p);
      const messages = ctx.pubsub.subscribe(notificationsTopic(p.userId)) as AsyncIterator<unknown> & { return(): Promise<IteratorResult<unknown>> };
      const count = () => ctx.services.notifications.unreadCount(p);
      return mapSubscription(messages, count, count);
    },
    resolve: (n) => n,
  }),
}));
