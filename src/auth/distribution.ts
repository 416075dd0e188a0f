/**
 * MISP distribution: the one rule that says who may read an event and what is inside it. Every read
 * path derives from it: the services (`canRead*`), their SQL filters (`readable*Sql`), the search
 * documents (`audienceOf`, stored as `visible_to` and filtered by both search backends through
 * `audienceFilter`), correlations (both sides), notifications and exports.
 *
 * Levels: 0 your organisation, 1 this community, 2 connected communities, 3 all communities,
 * 4 a sharing group, 5 (objects and attributes only) the event's own.
 * - The organisations that own an event, the owning (`org`) and the creating (`orgc`) one, read
 *   everything in it and are the only ones who may change it.
 * - Anyone else with the read scope reads an event of level 1-3, and inside it the objects and
 *   attributes of level 1-3 or 5; an attribute inside an object needs both to pass.
 * - Level 4 (a sharing group) reads as level 1-3 for the organisations that own or belong to the
 *   group named by the record's `sharing_group_id` (`Principal.sharingGroupIds`), and as the owners'
 *   only for everyone else; level 4 without a group is the owners' only.
 * On one instance, levels 1-3 all mean "every organisation of the instance".
 * Administrators (scope `*`) read everything.
 */
import type { Prisma } from "../platform/db/index.ts";
import { isAdmin, type Principal } from "./principal.ts";

export const DISTRIBUTION = { organisation: 0, community: 1, connected: 2, all: 3, sharingGroup: 4, inherit: 5 } as const;

/** The event fields the rule reads (no `sharingGroupId`: level 4 reads as the owners' only). */
export interface EventAccessFields {
  distribution: number;
  orgId: number;
  orgcId: number;
  sharingGroupId?: number | null;
}

/**
 * The level of an object or attribute, with its sharing group when it has one (a bare level 4 reads
 * as the owners' only); null or undefined for "none" (an attribute outside any object).
 */
export type ItemLevel = number | { distribution: number; sharingGroupId: number | null } | null | undefined;

/** The marker in an audience for "every organisation". */
export const EVERYONE = -1;

const PUBLIC_EVENT_LEVELS: readonly number[] = [DISTRIBUTION.community, DISTRIBUTION.connected, DISTRIBUTION.all];
const PUBLIC_ITEM_LEVELS: readonly number[] = [...PUBLIC_EVENT_LEVELS, DISTRIBUTION.inherit];

const ownedBy = (e: EventAccessFields, orgId: number | null) => orgId !== null && (e.orgId === orgId || e.orgcId === orgId);

/** A level as the rule reads it: the level and its group (none for a bare number). */
function levelOf(item: NonNullable<ItemLevel>): { distribution: number; sharingGroupId: number | null } {
  return typeof item === "number" ? { distribution: item, sharingGroupId: null } : item;
}

/**
 * Who besides the owners may read at one level: everyone (levels 1-3, and 5 for items), the members
 * of one sharing group (level 4 with a group), or nobody.
 */
type Reach = "everyone" | { sharingGroupId: number } | "owners";

function reachOf(level: { distribution: number; sharingGroupId?: number | null }, publicLevels: readonly number[]): Reach {
  if (publicLevels.includes(level.distribution)) return "everyone";
  if (level.distribution === DISTRIBUTION.sharingGroup && level.sharingGroupId != null) return { sharingGroupId: level.sharingGroupId };
  return "owners";
}

/**
 * The reach of an event and the items inside it together, as one audience can say it (search
 * documents): what every one of them allows.
 */
function jointReach(e: EventAccessFields, items: readonly ItemLevel[]): Reach {
  let reach = reachOf(e, PUBLIC_EVENT_LEVELS);
  for (const item of items) {
    if (item === null || item === undefined || reach === "owners") continue;
    const next = reachOf(levelOf(item), PUBLIC_ITEM_LEVELS);
    if (next === "everyone") continue;
    if (next === "owners") reach = "owners";
    // Two different groups: only members of both could read it; no group stands for that, so the owners only.
    else if (reach === "everyone" || reach.sharingGroupId === next.sharingGroupId) reach = next;
    else reach = "owners";
  }
  return reach;
}

function reaches(p: Principal, reach: Reach): boolean {
  return reach === "everyone" || (reach !== "owners" && p.sharingGroupIds.includes(reach.sharingGroupId));
}

/** Whether someone who does not own the event may read it and these items inside it: each must reach them. */
function readsAsNonOwner(p: Principal, e: EventAccessFields, items: readonly ItemLevel[]): boolean {
  return reaches(p, reachOf(e, PUBLIC_EVENT_LEVELS)) && items.every((i) => i === null || i === undefined || reaches(p, reachOf(levelOf(i), PUBLIC_ITEM_LEVELS)));
}

export function canReadEvent(p: Principal, e: EventAccessFields): boolean {
  return isAdmin(p) || ownedBy(e, p.orgId) || readsAsNonOwner(p, e, []);
}

/** An object (`[object]`), an attribute (`[attribute, object-or-null]`) inside the event `e`. */
export function canReadInEvent(p: Principal, e: EventAccessFields, ...items: ItemLevel[]): boolean {
  return isAdmin(p) || ownedBy(e, p.orgId) || readsAsNonOwner(p, e, items);
}

/** Only the owning organisation (and administrators) change or delete an event and what it holds. */
export function canWriteEvent(p: Principal, e: { orgId: number }): boolean {
  return isAdmin(p) || e.orgId === p.orgId;
}

/**
 * An item's level column for `readableSql`: `<alias>.distribution` (its group is then
 * `<alias>.sharing_group_id` of the same row), another level expression (a level 4 there reads as
 * the owners' only), or a level with its group's expression.
 */
export type ItemColumns = string | { level: string; sharingGroup: string };

function itemColumns(i: ItemColumns): { level: string; sharingGroup: string | null } {
  if (typeof i !== "string") return i;
  const alias = /^([a-z_][a-z0-9_]*)\.distribution$/.exec(i);
  return { level: i, sharingGroup: alias ? `${alias[1]}.sharing_group_id` : null };
}

/**
 * The rule as SQL over an events alias and the level columns of the items inside it (expressions
 * that may be NULL for "none", e.g. the level of an outer-joined object). Parameters are appended
 * to `params`; the result is a boolean expression.
 */
export function readableSql(p: Principal, event: string, items: readonly ItemColumns[], params: unknown[]): string {
  if (isAdmin(p)) return "TRUE";
  let groups: string | null = null;
  if (p.sharingGroupIds.length > 0) {
    params.push(p.sharingGroupIds);
    groups = `$${params.length}::int[]`;
  }
  const inGroup = (level: string, group: string) => (groups ? ` OR (${level} = ${DISTRIBUTION.sharingGroup} AND ${group} = ANY(${groups}))` : "");
  const eventReach = `(${event}.distribution IN (${PUBLIC_EVENT_LEVELS.join(", ")})${inGroup(`${event}.distribution`, `${event}.sharing_group_id`)})`;
  const itemReach = items.map((i) => {
    const { level, sharingGroup } = itemColumns(i);
    const shared = `COALESCE(${level}, ${DISTRIBUTION.inherit}) IN (${PUBLIC_ITEM_LEVELS.join(", ")})`;
    return sharingGroup ? `(${shared}${inGroup(level, sharingGroup)})` : shared;
  });
  const publicCase = `(${[eventReach, ...itemReach].join(" AND ")})`;
  if (p.orgId === null) return publicCase;
  params.push(p.orgId);
  const n = params.length;
  return `(${event}.org_id = $${n} OR ${event}.orgc_id = $${n} OR ${publicCase})`;
}

/**
 * The items' own part of the rule as SQL: true when everyone who may read their event may read them
 * too (level 1-3 or 5; NULL is "none").
 */
export function sharedItemsSql(items: readonly string[]): string {
  if (items.length === 0) return "TRUE";
  return items.map((i) => `COALESCE(${i}, ${DISTRIBUTION.inherit}) IN (${PUBLIC_ITEM_LEVELS.join(", ")})`).join(" AND ");
}

export function readableEventsSql(p: Principal, event: string, params: unknown[]): string {
  return readableSql(p, event, [], params);
}

/**
 * Who may read a record, for search documents: `[EVERYONE]`, or the organisations that may
 * (administrators always may). Sorted, without duplicates.
 */
export function audienceOf(e: EventAccessFields, ...items: ItemLevel[]): number[] {
  const reach = jointReach(e, items);
  if (reach === "everyone") return [EVERYONE];
  const owners = e.orgId === e.orgcId ? [e.orgId] : [Math.min(e.orgId, e.orgcId), Math.max(e.orgId, e.orgcId)];
  return reach === "owners" ? owners : [sharingGroupMarker(reach.sharingGroupId), ...owners];
}

/**
 * A sharing group in an audience: below EVERYONE (-1), so it never meets an organisation id. The
 * members read through it without their documents being rewritten when membership changes.
 */
export function sharingGroupMarker(sharingGroupId: number): number {
  return EVERYONE - sharingGroupId;
}

/** The audience of something that shows two records at once (a correlation): who may read both. */
export function sharedAudience(a: readonly number[], b: readonly number[]): number[] {
  if (a.includes(EVERYONE)) return [...b];
  if (b.includes(EVERYONE)) return [...a];
  return a.filter((org) => b.includes(org));
}

/** Who is searching, as both search backends take it. */
export function searchAccessOf(p: Principal): { admin: boolean; orgId: number | null; sharingGroupIds: readonly number[] } {
  return { admin: isAdmin(p), orgId: p.orgId, sharingGroupIds: p.sharingGroupIds };
}

/**
 * The audience values a caller's documents must carry one of; null for an administrator, who
 * reads every document.
 */
export function audienceFilter(p: { admin: boolean; orgId: number | null; sharingGroupIds?: readonly number[] }): number[] | null {
  if (p.admin) return null;
  const groups = (p.sharingGroupIds ?? []).map(sharingGroupMarker);
  return p.orgId === null ? [EVERYONE, ...groups] : [EVERYONE, p.orgId, ...groups];
}

/**
 * The rule as Prisma filters, for reads through Prisma relations (GraphQL's event, object and
 * attribute types): the same levels and owners as `readableSql`, checked equal to it on every
 * combination of levels by test/integration/distribution-renderings.test.ts.
 */
export function readableEventWhere(p: Principal): Prisma.EventWhereInput {
  if (isAdmin(p)) return {};
  const shared = reachWhere(p, PUBLIC_EVENT_LEVELS);
  return p.orgId === null ? shared : { OR: [{ orgId: p.orgId }, { orgcId: p.orgId }, shared] };
}

/** Who besides the owners reaches a record at its own level, as a filter on its `distribution` and `sharingGroupId`. */
function reachWhere(p: Principal, publicLevels: readonly number[]) {
  const everyone = { distribution: { in: [...publicLevels] } };
  if (p.sharingGroupIds.length === 0) return everyone;
  return { OR: [everyone, { distribution: DISTRIBUTION.sharingGroup, sharingGroupId: { in: [...p.sharingGroupIds] } }] };
}

/** Objects of readable events that the caller may read. */
export function readableObjectWhere(p: Principal): Prisma.MispObjectWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.MispObjectWhereInput = { AND: [{ event: reachWhere(p, PUBLIC_EVENT_LEVELS) }, reachWhere(p, PUBLIC_ITEM_LEVELS)] };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}

/** Event reports of readable events that the caller may read (a report is an item of its event, as an object is). */
export function readableReportWhere(p: Principal): Prisma.EventReportWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.EventReportWhereInput = { AND: [{ event: reachWhere(p, PUBLIC_EVENT_LEVELS) }, reachWhere(p, PUBLIC_ITEM_LEVELS)] };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}

/** Attributes of readable events that the caller may read (inside an object, both must pass). */
export function readableAttributeWhere(p: Principal): Prisma.AttributeWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.AttributeWhereInput = {
    AND: [{ event: reachWhere(p, PUBLIC_EVENT_LEVELS) }, reachWhere(p, PUBLIC_ITEM_LEVELS), { OR: [{ objectId: null }, { object: reachWhere(p, PUBLIC_ITEM_LEVELS) }] }],
  };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}
