import type { PullRules, PushRules } from "./servers.contracts.ts";

/**
 * The pull and push rules as pure functions over MISP JSON: what a pull takes from the remote's
 * index and how it stores what it took, and what a push may send of an event. Distribution follows
 * MISP (Server::__updatePulledEventBeforeInsert, Event::__updateEventForSync): unless the server is
 * internal, a pull downgrades community only (1) to your organisation only (0) and connected
 * communities (2) to community only (1), and a push sends nothing below connected communities and
 * connected communities as community only; local tags never cross; a push never sends
 * distribution 0 nor a sharing group without the remote organisation.
 *
 * A sharing group also limits the servers its data reaches (SharingGroup::checkIfServerInSG): MISP
 * sends it to a server the group lists, or to any server when the group is roaming. Our groups list
 * no servers, so each stands for MISP's default group, which lists this instance only: its data is
 * pushed when the group is roaming, or to an internal server (which MISP lets past the server
 * list), and in both cases only when the remote organisation is a member.
 */
type Json = Record<string, unknown>;
type Filter = { include?: string[]; exclude?: string[] };

const lower = (s: unknown) => (typeof s === "string" ? s.toLowerCase() : "");

function passes(filter: Filter | undefined, values: string[]): boolean {
  if (!filter) return true;
  const have = new Set(values.map(lower));
  if (filter.include?.length && !filter.include.some((v) => have.has(lower(v)))) return false;
  return !filter.exclude?.some((v) => have.has(lower(v)));
}

const tagNames = (tags: unknown): string[] =>
  Array.isArray(tags) ? tags.map((t) => lower((t as { Tag?: { name?: unknown }; name?: unknown })?.Tag?.name ?? (t as { name?: unknown })?.name)).filter(Boolean) : [];

const orgKeys = (org: unknown): string[] => {
  const o = (org ?? {}) as { name?: unknown; uuid?: unknown };
  return [lower(o.name), lower(o.uuid)].filter(Boolean);
};

/** One entry of the remote's events/index, as far as a pull reads it. */
export interface IndexEntry {
  uuid: string;
  timestamp: number;
  published: boolean;
  info: string;
  orgc: string;
  distribution: number;
  tags: string[];
}

/** The index entry's fields a pull uses, or null when the remote sent something that is not an event. */
export function indexEntry(raw: unknown): (IndexEntry & { raw: Json }) | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const e = raw as Json;
  const uuid = lower(e.uuid);
  const timestamp = Number(e.timestamp);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid) || !Number.isSafeInteger(timestamp)) return null;
  return {
    uuid,
    timestamp,
    published: e.published === true || e.published === "1" || e.published === 1,
    info: typeof e.info === "string" ? e.info.slice(0, 300) : "",
    orgc: typeof (e.Orgc as Json | undefined)?.name === "string" ? String((e.Orgc as Json).name) : "",
    distribution: Number(e.distribution),
    tags: tagNames(e.EventTag ?? e.Tag),
    raw: e,
  };
}

export function pullTakes(rules: PullRules, e: IndexEntry & { raw: Json }): boolean {
  if ((rules.publishedOnly ?? true) && !e.published) return false;
  if (rules.since != null && e.timestamp < rules.since) return false;
  return passes(rules.tags, e.tags) && passes(rules.orgs, orgKeys(e.raw.Orgc));
}

/** Whether the push rules take the event (before distribution, which `forRemote` judges). */
export function pushTakes(rules: PushRules, event: Json): boolean {
  if ((rules.publishedOnly ?? true) && event.published !== true) return false;
  return passes(rules.tags, tagNames(event.Tag)) && passes(rules.orgs, orgKeys(event.Orgc));
}

const truthy = (v: unknown) => v === true || v === 1 || v === "1" || v === "true";
const isLocal = (t: unknown) => truthy((t as { local?: unknown } | null)?.local);
const withoutLocalTags = (tags: unknown) => (Array.isArray(tags) ? tags.filter((t) => !isLocal(t)) : tags);

/**
 * The event as the remote organisation may receive it, or null when the event itself may not go
 * (distribution 0, or a sharing group that does not reach that server or organisation; unless the
 * server is internal, community only too). Attributes, objects and reports that may not go are left out; local tags are
 * removed; unless internal, connected communities go as community only; then the rules' cap applies.
 */
export function forRemote(event: Json, remoteOrgUuid: string, rules: PushRules, internal = false): Json | null {
  const cap = rules.maxDistribution ?? 3;
  const remote = remoteOrgUuid.toLowerCase();
  /** The element with its distribution downgraded and capped, or null when it may not go. */
  const allowed = <T extends Json>(item: T): T | null => {
    const d = Number(item.distribution);
    if (d === 0) return null;
    if (d === 4) return sharingGroupReaches(item.SharingGroup, remote, internal) ? item : null;
    if (d >= 1 && d <= 3) {
      if (!internal && d === 1) return null;
      return { ...item, distribution: String(Math.min(!internal && d === 2 ? 1 : d, cap)) };
    }
    return item;
  };
  const top = allowed(event);
  if (!top) return null;
  const attributes = (list: unknown) =>
    (Array.isArray(list) ? (list as Json[]) : []).map(allowed).filter((a): a is Json => a !== null).map((a) => ({ ...a, Tag: withoutLocalTags(a.Tag), Sighting: undefined }));
  const objects = (Array.isArray(event.Object) ? (event.Object as Json[]) : []).map(allowed).filter((o): o is Json => o !== null).map((o) => ({ ...o, Attribute: attributes(o.Attribute) }));
  const reports = Array.isArray(event.EventReport) ? (event.EventReport as Json[]).map(allowed).filter((r): r is Json => r !== null) : undefined;
  return { ...top, Tag: withoutLocalTags(top.Tag), Attribute: attributes(top.Attribute), Object: objects, ...(reports ? { EventReport: reports } : {}) };
}

/** MISP's pull downgrade of one element's distribution (an event without one has MISP's version-1 default, community only). */
function pulledDistribution<T extends Json>(item: T, absent?: number): T {
  const d = item.distribution === undefined || item.distribution === null ? absent : Number(item.distribution);
  return d === 1 || d === 2 ? { ...item, distribution: String(d - 1) } : item;
}

/**
 * A remote event (`{"Event": {...}}` or the event itself) as a pull stores it: from a server that is
 * not internal, distributions downgraded one step (event, attributes, objects and their attributes,
 * reports) and local tags left out, as MISP does on pull; from an internal one, as it came.
 */
export function pulledEvent(doc: unknown, internal: boolean): unknown {
  if (internal || !doc || typeof doc !== "object" || Array.isArray(doc)) return doc;
  const wrapped = "Event" in doc;
  const event = (wrapped ? (doc as { Event: unknown }).Event : doc) as Json;
  if (!event || typeof event !== "object" || Array.isArray(event)) return doc;
  // What is not an object stays as it came, for the import to refuse by name.
  const each = (v: unknown, f: (x: Json) => Json): unknown[] | undefined => (Array.isArray(v) ? v.map((x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? f(x as Json) : x)) : undefined);
  const attribute = (a: Json): Json => ({ ...pulledDistribution(a), ...(a.Tag === undefined ? {} : { Tag: withoutLocalTags(a.Tag) }) });
  const out: Json = { ...pulledDistribution(event, 1) };
  if (event.Tag !== undefined) out.Tag = withoutLocalTags(event.Tag);
  if (event.EventTag !== undefined) out.EventTag = withoutLocalTags(event.EventTag);
  if (event.Attribute !== undefined) out.Attribute = each(event.Attribute, attribute) ?? event.Attribute;
  if (event.Object !== undefined) out.Object = each(event.Object, (o) => ({ ...pulledDistribution(o), ...(o.Attribute === undefined ? {} : { Attribute: each(o.Attribute, attribute) ?? o.Attribute }) })) ?? event.Object;
  if (event.EventReport !== undefined) out.EventReport = each(event.EventReport, (r) => pulledDistribution(r)) ?? event.EventReport;
  return wrapped ? { ...doc, Event: out } : out;
}

function sharingGroupReaches(block: unknown, orgUuid: string, internal: boolean): boolean {
  if (!block || typeof block !== "object") return false;
  const sg = block as { roaming?: unknown; Organisation?: { uuid?: unknown }; SharingGroupOrg?: { Organisation?: { uuid?: unknown } }[] };
  if (!internal && !truthy(sg.roaming)) return false;
  if (lower(sg.Organisation?.uuid) === orgUuid) return true;
  return Array.isArray(sg.SharingGroupOrg) && sg.SharingGroupOrg.some((m) => lower(m?.Organisation?.uuid) === orgUuid);
}
