/**
 * Search documents (svc-events, svc-attributes) built from the real MISP events in
 * `../shared/data/misp-feed-sample` and `../shared/data/misp-events`, with the field names of
 * `src/search/fields.ts` (peer-api-notes section 4). Read in place, never copied.
 *
 * Synthetic parts, deterministic: organisation ids come from the Org/Orgc names; events without a
 * distribution get `index % 6`; the third event is soft-deleted; `expanded.ip` is set for `ip-src`
 * / `ip-dst` values (as the peer's ingest pipeline) and `expanded.ip_range` to the value's /24.
 */
import fs from "node:fs";
import { sharedPath } from "./shared-data.ts";
import type { SearchDocument } from "../../src/search/search-index.ts";
import { audienceOf } from "../../src/auth/distribution.ts";

interface MispTag {
  name: string;
  colour?: string;
  local?: boolean | number | string;
  is_galaxy?: boolean;
}
interface MispAttribute {
  uuid: string;
  type: string;
  category: string;
  value: string;
  comment?: string;
  to_ids?: boolean | string;
  deleted?: boolean | string;
  disable_correlation?: boolean | string;
  timestamp?: string | number;
  first_seen?: string | null;
  last_seen?: string | null;
  distribution?: string | number;
  object_relation?: string | null;
  Tag?: MispTag[];
}
interface MispEvent {
  uuid: string;
  info: string;
  date?: string;
  published?: boolean | string;
  analysis?: string | number;
  threat_level_id?: string | number;
  distribution?: string | number;
  timestamp?: string | number;
  publish_timestamp?: string | number;
  extends_uuid?: string;
  locked?: boolean;
  protected?: boolean | null;
  disable_correlation?: boolean;
  Org?: { name: string; uuid?: string };
  Orgc?: { name: string; uuid?: string };
  Tag?: MispTag[];
  Attribute?: MispAttribute[];
  Object?: { uuid: string; distribution?: string | number; Attribute?: MispAttribute[] }[];
}

export type Doc = SearchDocument & { source: Record<string, unknown> };

const bool = (v: unknown) => v === true || v === "1" || v === 1 || v === "true";
const num = (v: unknown, d = 0) => (v === undefined || v === null || v === "" ? d : Number(v));
const naiveIso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 19);
const epochOf = (iso: string | null | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : null);

function tagDocs(tags: MispTag[] | undefined) {
  return (tags ?? []).map((t) => ({
    name: t.name,
    colour: t.colour ?? null,
    local: bool(t.local),
    is_galaxy: t.name.startsWith("misp-galaxy:"),
  }));
}

export function loadMispEvents(): MispEvent[] {
  const files = [
    ...fs.readdirSync(sharedPath("misp-feed-sample")).filter((f) => /^[0-9a-f-]{36}\.json$/.test(f)).map((f) => sharedPath("misp-feed-sample", f)),
    ...fs.readdirSync(sharedPath("misp-events")).filter((f) => f.endsWith(".json")).map((f) => sharedPath("misp-events", f)),
  ].sort();
  const out: MispEvent[] = [];
  for (const f of files) {
    const json = JSON.parse(fs.readFileSync(f, "utf8")) as { Event?: MispEvent };
    if (json.Event?.uuid && json.Event.info) out.push(json.Event);
  }
  return out;
}

export function buildSearchDocuments(): { events: Doc[]; attributes: Doc[] } {
  const orgIds = new Map<string, number>();
  const orgId = (name: string | undefined) => {
    if (!name) return null;
    if (!orgIds.has(name)) orgIds.set(name, orgIds.size + 1);
    return orgIds.get(name)!;
  };
  const events: Doc[] = [];
  const attributes: Doc[] = [];
  loadMispEvents().forEach((e, i) => {
    const orgc = orgId(e.Orgc?.name);
    const org = orgId(e.Org?.name) ?? orgc;
    const distribution = e.distribution !== undefined ? num(e.distribution) : i % 6;
    const ts = num(e.timestamp);
    const attrs = [
      ...(e.Attribute ?? []).map((a) => ({ a, object: null as string | null, objectDistribution: null as number | null })),
      ...(e.Object ?? []).flatMap((o, k) => (o.Attribute ?? []).map((a) => ({ a, object: o.uuid, objectDistribution: k % 5 === 4 ? 0 : num(o.distribution, 5) }))),
    ];
    // Some attributes and objects (above) of the organisation only, whatever the data says: the
    // distribution rule hides them from others inside events they may read.
    const attributeDistribution = (a: MispAttribute, k: number) => (k % 7 === 3 ? 0 : num(a.distribution, 5));
    const eventAccess = { distribution, orgId: org ?? 0, orgcId: orgc ?? 0 };
    events.push({
      id: e.uuid,
      source: {
        uuid: e.uuid,
        info: e.info,
        org_id: org,
        orgc_id: orgc,
        user_id: 1,
        date: e.date ?? null,
        published: bool(e.published),
        analysis: num(e.analysis),
        threat_level: num(e.threat_level_id, 4),
        distribution,
        attribute_count: attrs.length,
        object_count: (e.Object ?? []).length,
        timestamp: ts,
        publish_timestamp: num(e.publish_timestamp),
        sighting_timestamp: null,
        locked: bool(e.locked),
        protected: bool(e.protected),
        disable_correlation: bool(e.disable_correlation),
        deleted: i === 2,
        extends_uuid: e.extends_uuid || null,
        organisation: e.Org ? { uuid: e.Org.uuid ?? null, name: e.Org.name } : null,
        orgc: e.Orgc ? { uuid: e.Orgc.uuid ?? null, name: e.Orgc.name } : null,
        tags: tagDocs(e.Tag),
        "@timestamp": naiveIso(ts),
        event_distribution: distribution,
        event_org_id: org,
        event_orgc_id: orgc,
        visible_to: audienceOf(eventAccess),
      },
    });
    for (const [k, { a, object, objectDistribution }] of attrs.entries()) {
      const ip = (a.type === "ip-src" || a.type === "ip-dst") && !a.value.includes("/") ? a.value : null;
      const ats = num(a.timestamp, ts);
      attributes.push({
        id: a.uuid,
        source: {
          uuid: a.uuid,
          event_uuid: e.uuid,
          object_uuid: object,
          object_relation: a.object_relation ?? null,
          category: a.category,
          type: a.type,
          value: a.value,
          comment: a.comment ?? "",
          to_ids: bool(a.to_ids),
          deleted: bool(a.deleted),
          disable_correlation: bool(a.disable_correlation),
          timestamp: ats,
          first_seen: epochOf(a.first_seen),
          last_seen: epochOf(a.last_seen),
          distribution: attributeDistribution(a, k),
          tags: tagDocs(a.Tag),
          expanded: ip ? { ip, ip_range: `${ip.split(".").slice(0, 3).join(".")}.0/24` } : {},
          "@timestamp": new Date(ats * 1000).toISOString(),
          event_distribution: distribution,
          event_org_id: org,
          event_orgc_id: orgc,
          object_distribution: objectDistribution,
          visible_to: audienceOf(eventAccess, attributeDistribution(a, k), objectDistribution),
        },
      });
    }
  });
  // A uuid seen twice (copies of one event in two files) is indexed once: the last copy wins.
  const dedupe = (docs: Doc[]) => [...new Map(docs.map((d) => [d.id, d])).values()];
  return { events: dedupe(events), attributes: dedupe(attributes) };
}
