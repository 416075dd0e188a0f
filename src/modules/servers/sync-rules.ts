import type { PullRules, PushRules } from "./servers.contracts.ts";

/**
 * The pull and push rules as pure functions over MISP JSON: what a pull takes from the remote's
 * index, and what a push may send of an event (MISP's rules: nothing of distribution 0, nothing of
 * a sharing group the remote organisation is not in, local tags stay here, distributions capped).
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

/**
 * The event as the remote organisation may receive it, or null when the event itself may not go
 * (distribution 0, or a sharing group without that organisation). Attributes, objects and reports
 * that may not go are left out; local tags are removed; distributions 1-3 are capped.
 */
export function forRemote(event: Json, remoteOrgUuid: string, rules: PushRules): Json | null {
  const cap = rules.maxDistribution ?? 3;
  const remote = remoteOrgUuid.toLowerCase();
  /** The element with its distribution capped, or null when it may not go. */
  const allowed = <T extends Json>(item: T): T | null => {
    const d = Number(item.distribution);
    if (d === 0) return null;
    if (d === 4) return sharingGroupHas(item.SharingGroup, remote) ? item : null;
    if (d >= 1 && d <= 3) return { ...item, distribution: String(Math.min(d, cap)) };
    return item;
  };
  const top = allowed(event);
  if (!top) return null;
  const withoutLocalTags = (tags: unknown) => (Array.isArray(tags) ? tags.filter((t) => !(t as { local?: unknown })?.local) : tags);
  const attributes = (list: unknown) =>
    (Array.isArray(list) ? (list as Json[]) : []).map(allowed).filter((a): a is Json => a !== null).map((a) => ({ ...a, Tag: withoutLocalTags(a.Tag), Sighting: undefined }));
  const objects = (Array.isArray(event.Object) ? (event.Object as Json[]) : []).map(allowed).filter((o): o is Json => o !== null).map((o) => ({ ...o, Attribute: attributes(o.Attribute) }));
  const reports = Array.isArray(event.EventReport) ? (event.EventReport as Json[]).map(allowed).filter((r): r is Json => r !== null) : undefined;
  return { ...top, Tag: withoutLocalTags(top.Tag), Attribute: attributes(top.Attribute), Object: objects, ...(reports ? { EventReport: reports } : {}) };
}

function sharingGroupHas(block: unknown, orgUuid: string): boolean {
  if (!block || typeof block !== "object") return false;
  const sg = block as { Organisation?: { uuid?: unknown }; SharingGroupOrg?: { Organisation?: { uuid?: unknown } }[] };
  if (lower(sg.Organisation?.uuid) === orgUuid) return true;
  return Array.isArray(sg.SharingGroupOrg) && sg.SharingGroupOrg.some((m) => lower(m?.Organisation?.uuid) === orgUuid);
}
