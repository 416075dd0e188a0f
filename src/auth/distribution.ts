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
 * - Level 4 reads as the owners' only until sharing groups exist.
 * On one instance, levels 1-3 all mean "every organisation of the instance".
 * Administrators (scope `*`) read everything.
 */
import type { Prisma } from "../platform/db/index.ts";
import { isAdmin, type Principal } from "./principal.ts";

export const DISTRIBUTION = { organisation: 0, community: 1, connected: 2, all: 3, sharingGroup: 4, inherit: 5 } as const;

/** The event fields the rule reads. */
export interface EventAccessFields {
  distribution: number;
  orgId: number;
  orgcId: number;
}

/** The level of an object or attribute; null or undefined for "none" (an attribute outside any object). */
export type ItemLevel = number | null | undefined;

/** The marker in an audience for "every organisation". */
export const EVERYONE = -1;

const PUBLIC_EVENT_LEVELS: readonly number[] = [DISTRIBUTION.community, DISTRIBUTION.connected, DISTRIBUTION.all];
const PUBLIC_ITEM_LEVELS: readonly number[] = [...PUBLIC_EVENT_LEVELS, DISTRIBUTION.inherit];

const ownedBy = (e: EventAccessFields, orgId: number | null) => orgId !== null && (e.orgId === orgId || e.orgcId === orgId);
const itemIsPublic = (level: ItemLevel) => level === null || level === undefined || PUBLIC_ITEM_LEVELS.includes(level);

/** Whether everyone (with the read scope) may read the event and these items inside it. */
function isPublic(e: EventAccessFields, items: readonly ItemLevel[]): boolean {
  return PUBLIC_EVENT_LEVELS.includes(e.distribution) && items.every(itemIsPublic);
}

export function canReadEvent(p: Principal, e: EventAccessFields): boolean {
  return isAdmin(p) || ownedBy(e, p.orgId) || isPublic(e, []);
}

/** An object (`[object]`), an attribute (`[attribute, object-or-null]`) inside the event `e`. */
export function canReadInEvent(p: Principal, e: EventAccessFields, ...items: ItemLevel[]): boolean {
  return isAdmin(p) || ownedBy(e, p.orgId) || isPublic(e, items);
}

/** Only the owning organisation (and administrators) change or delete an event and what it holds. */
export function canWriteEvent(p: Principal, e: { orgId: number }): boolean {
  return isAdmin(p) || e.orgId === p.orgId;
}

/**
 * The rule as SQL over an events alias and the level columns of the items inside it (expressions
 * that may be NULL for "none", e.g. the level of an outer-joined object). Parameters are appended
 * to `params`; the result is a boolean expression.
 */
export function readableSql(p: Principal, event: string, items: readonly string[], params: unknown[]): string {
  if (isAdmin(p)) return "TRUE";
  const publicCase = `(${event}.distribution IN (${PUBLIC_EVENT_LEVELS.join(", ")}) AND ${sharedItemsSql(items)})`;
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
  if (isPublic(e, items)) return [EVERYONE];
  return e.orgId === e.orgcId ? [e.orgId] : [Math.min(e.orgId, e.orgcId), Math.max(e.orgId, e.orgcId)];
}

/** The audience of something that shows two records at once (a correlation): who may read both. */
export function sharedAudience(a: readonly number[], b: readonly number[]): number[] {
  if (a.includes(EVERYONE)) return [...b];
  if (b.includes(EVERYONE)) return [...a];
  return a.filter((org) => b.includes(org));
}

/** Who is searching, as both search backends take it. */
export function searchAccessOf(p: Principal): { admin: boolean; orgId: number | null } {
  return { admin: isAdmin(p), orgId: p.orgId };
}

/**
 * The audience values a caller's documents must carry one of; null for an administrator, who
 * reads every document.
 */
export function audienceFilter(p: Pick<Principal, "orgId"> & { admin: boolean }): number[] | null {
  if (p.admin) return null;
  return p.orgId === null ? [EVERYONE] : [EVERYONE, p.orgId];
}

/**
 * The rule as Prisma filters, for reads through Prisma relations (GraphQL's event, object and
 * attribute types): the same levels and owners as `readableSql`, checked equal to it on every
 * combination of levels by test/integration/distribution-renderings.test.ts.
 */
export function readableEventWhere(p: Principal): Prisma.EventWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.EventWhereInput = { distribution: { in: [...PUBLIC_EVENT_LEVELS] } };
  return p.orgId === null ? shared : { OR: [{ orgId: p.orgId }, { orgcId: p.orgId }, shared] };
}

const sharedItemLevel = { in: [...PUBLIC_ITEM_LEVELS] };

/** Objects of readable events that the caller may read. */
export function readableObjectWhere(p: Principal): Prisma.MispObjectWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.MispObjectWhereInput = { event: { distribution: { in: [...PUBLIC_EVENT_LEVELS] } }, distribution: sharedItemLevel };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}

/** Event reports of readable events that the caller may read (a report is an item of its event, as an object is). */
export function readableReportWhere(p: Principal): Prisma.EventReportWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.EventReportWhereInput = { event: { distribution: { in: [...PUBLIC_EVENT_LEVELS] } }, distribution: sharedItemLevel };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}

/** Attributes of readable events that the caller may read (inside an object, both must pass). */
export function readableAttributeWhere(p: Principal): Prisma.AttributeWhereInput {
  if (isAdmin(p)) return {};
  const shared: Prisma.AttributeWhereInput = {
    event: { distribution: { in: [...PUBLIC_EVENT_LEVELS] } },
    distribution: sharedItemLevel,
    OR: [{ objectId: null }, { object: { distribution: sharedItemLevel } }],
  };
  return p.orgId === null ? shared : { OR: [{ event: { orgId: p.orgId } }, { event: { orgcId: p.orgId } }, shared] };
}
