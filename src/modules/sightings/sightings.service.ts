import crypto from "node:crypto";
import type { AppContext } from "../../app-context.ts";
import { authorize, isAdmin, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { readableAttributeWhere, readableSql } from "../../auth/distribution.ts";
import { pageOf, type Page } from "../../platform/pagination.ts";
import type { Prisma, Sighting as SightingRecord } from "../../generated/prisma/client.ts";
import { loadAttribute, canReadAttribute } from "../attributes/index.ts";
import { Issues, nowSeconds } from "../attributes/index.ts";
import {
  SIGHTING_TYPES,
  sightingContract,
  sightingListContract,
  sightingsContract,
  type Sighting,
  type SightingInput,
  type SightingListQuery,
  type SightingTypeName,
} from "./sightings.contracts.ts";

export { SIGHTING_TYPES, sightingTypeCode } from "./sightings.contracts.ts";
export type { SightingInput, SightingTypeName } from "./sightings.contracts.ts";

export interface SightingsCreated {
  /** Sightings stored (one per matched attribute per item). */
  created: number;
  /** True when the per-request cap cut the matches short. */
  capped: boolean;
  /** Items skipped (array mode: empty value), as `{index, detail}`. */
  skipped: { index: number; detail: string }[];
  /** The sightings stored, in item order (MISP's API answers the first with its ids). */
  stored: StoredSighting[];
}

/** A stored sighting with the numeric ids MISP's API shows. */
export interface StoredSighting {
  id: number;
  uuid: string;
  attributeId: string;
  eventId: number;
  orgId: number | null;
  type: number;
  source: string;
  dateSighting: number;
}

export interface SightingHit {
  _index: string;
  _id: string;
  _score: null;
  _source: {
    uuid: string;
    value: string;
    type: SightingTypeName;
    timestamp: number;
    attribute_uuid: string;
    attribute_type: string;
    event_uuid: string;
    observer: { organisation: string | null; source: string };
    "@timestamp": string;
  };
}

export interface SightingSearch {
  page: number;
  size: number;
  total: number;
  took: number;
  timed_out: boolean;
  max_score: null;
  results: SightingHit[];
}

export { MAX_SIGHTINGS_PER_REQUEST } from "./sightings.contracts.ts";

/** What a GraphQL selection asks to load with sightings (@pothos/plugin-prisma's query). */
export type SightingSelection = Pick<Prisma.SightingFindManyArgs, "include" | "select">;

/**
 * The sightings `p` may read, as a query's where: those of the attributes `p` may read (the
 * distribution rule over the attribute, its object and its event: readableAttributeWhere, checked
 * equal to readableSql and canReadInEvent by the renderings test), deleted attributes included.
 */
export function readableSightingWhere(p: Principal): Prisma.SightingWhereInput {
  return isAdmin(p) ? {} : { attribute: readableAttributeWhere(p) };
}

/** What the search envelope (REST, MCP) shows of a sighting, read in the page's one statement. */
const HIT_SELECT = {
  uuid: true,
  type: true,
  source: true,
  dateSighting: true,
  attribute: { select: { uuid: true, type: true, value: true, event: { select: { uuid: true } } } },
  org: { select: { name: true } },
} satisfies Prisma.SightingSelect;
type HitRecord = Prisma.SightingGetPayload<{ select: typeof HIT_SELECT }>;

function sightingHit(s: HitRecord): SightingHit {
  return {
    _index: SIGHTINGS_INDEX,
    _id: s.uuid,
    _score: null,
    _source: {
      uuid: s.uuid,
      value: s.attribute.value,
      type: SIGHTING_TYPES[s.type],
      timestamp: Number(s.dateSighting),
      attribute_uuid: s.attribute.uuid,
      attribute_type: s.attribute.type,
      event_uuid: s.attribute.event.uuid,
      observer: { organisation: s.org?.name ?? null, source: s.source },
      "@timestamp": new Date(Number(s.dateSighting) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    },
  };
}
/** Attributes one value may hit (the peer looks at the first 1000 matches). */
export const MAX_MATCHES_PER_VALUE = 1000;
/** Sightings one request may store in total. */
export const MAX_SIGHTINGS_STORED = 10_000;
export const SIGHTINGS_INDEX = "svc-sightings";

interface Prepared {
  index: number;
  value: string | null;
  type: number;
  ts: number;
  source: string;
  attributeUuid: string | null;
}

/**
 * Sightings, stored per attribute with the caller's organisation. A sighting names an attribute by
 * uuid, or a value: then every readable, live attribute whose value (or composite half) is exactly
 * that value gets one.
 */
export class SightingsService {
  constructor(private readonly ctx: AppContext) {}

  async create(p: Principal | null, items: SightingInput[], opts: { skipEmpty: boolean }): Promise<SightingsCreated> {
    authorize(p, "sightings:create");
    // One sighting (not the REST array form) is checked alone, so its errors name its fields directly.
    const single = !opts.skipEmpty && items.length === 1;
    const checked: Sighting[] = single ? [parseInput(sightingContract, items[0])] : parseInput(sightingsContract, items);
    const issues = new Issues();
    const now = nowSeconds();
    const skipped: SightingsCreated["skipped"] = [];
    const prepared: Prepared[] = [];
    checked.forEach((s, index) => {
      if (s.value === "") {
        if (opts.skipEmpty) skipped.push({ index, detail: "empty value skipped" });
        else issues.add(single ? ["value"] : [index, "value"], "must not be empty");
        return;
      }
      const ts = s.timestamp ?? now;
      prepared.push({ index, value: s.value ?? null, type: s.type ?? 0, ts: Math.floor(ts), source: s.source ?? "", attributeUuid: s.attributeUuid ?? null });
    });
    issues.throwIfAny();

    return withTransaction(this.ctx.db.pool, async (client) => {
      // Items naming an attribute: it must be readable (404 otherwise, nothing stored) and carry the value.
      const byUuid = new Map<string, { id: string; event_id: number; value: string }>();
      for (const s of prepared.filter((x) => x.attributeUuid)) {
        const a = await loadAttribute(client, s.attributeUuid!);
        if (!a || !canReadAttribute(p, a)) throw errors.notFound("Attribute");
        if (s.value !== null && s.value !== a.value && s.value !== a.value1 && s.value !== a.value2) {
          issues.add(opts.skipEmpty || items.length > 1 ? [s.index, "value"] : ["value"], "is not the value of this attribute", s.value);
        }
        if (s.value === null) s.value = a.value;
        byUuid.set(s.attributeUuid!, { id: a.id, event_id: a.eventId, value: a.value });
      }
      issues.throwIfAny();

      const params: unknown[] = [];
      const readable = readableSql(p, "e", ["a.distribution", "o.distribution"], params);
      const n = params.length;
      const col = <T>(f: (s: Prepared) => T) => prepared.map(f);
      params.push(
        col((s) => s.index),
        col((s) => s.value),
        col((s) => (s.attributeUuid ? byUuid.get(s.attributeUuid)!.id : null)),
        MAX_MATCHES_PER_VALUE,
        MAX_SIGHTINGS_STORED + 1,
      );
      const $ = (i: number) => `$${n + i}`;
      // 1. What each item hits: the named attribute, or up to 1000 live readable attributes whose
      //    value1 or value2 is the value (hash indexes; OFFSET 0 keeps the ORDER BY from turning
      //    this into a primary-key scan), in item order, at most MAX_SIGHTINGS_STORED (+1 to see the cap).
      const matched = await client.query<{ idx: number; attribute_id: string; event_id: number }>(
        `WITH items AS (SELECT * FROM unnest(${$(1)}::int[], ${$(2)}::text[], ${$(3)}::bigint[]) AS i(idx, value, attribute_id))
         SELECT idx, attribute_id::text, event_id FROM (
           SELECT i.idx, m.id AS attribute_id, m.event_id
             FROM items i CROSS JOIN LATERAL (
               SELECT id, event_id FROM (
                 SELECT a.id, a.event_id FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
                  WHERE i.attribute_id IS NULL AND (a.value1 = i.value OR a.value2 = i.value) AND NOT a.deleted AND ${readable}
                 OFFSET 0) x
               ORDER BY id DESC LIMIT ${$(4)}) m
           UNION ALL
           SELECT i.idx, a.id, a.event_id FROM items i JOIN attributes a ON a.id = i.attribute_id) y
         ORDER BY idx, attribute_id DESC LIMIT ${$(5)}`,
        params,
      );
      const capped = matched.rows.length > MAX_SIGHTINGS_STORED;
      const hits = matched.rows.slice(0, MAX_SIGHTINGS_STORED);
      if (hits.length === 0) return { created: 0, capped, skipped, stored: [] };
      // 2. Lock the events (in id order, as every writer locks an event before its children), so
      //    that a concurrent event delete or attribute write cannot deadlock with this request.
      const eventIds = [...new Set(hits.map((h) => h.event_id))];
      await client.query("SELECT id FROM events WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE", [eventIds]);
      // 3. Store one sighting per hit, with the caller's organisation.
      const byIndex = new Map(prepared.map((s) => [s.index, s]));
      const uuids: string[] = hits.map(() => crypto.randomUUID());
      const { rows } = await client.query<{ id: number; uuid: string; attribute_id: string; event_id: number; source: string; attribute_uuid: string; event_uuid: string; type: number; ts: string }>(
        `WITH inserted AS (
           INSERT INTO sightings (uuid, attribute_id, event_id, type, source, org_id, date_sighting)
           SELECT x.u, a.id, a.event_id, x.type, x.source, $6, x.ts
             FROM unnest($1::uuid[], $2::bigint[], $3::smallint[], $4::text[], $5::bigint[]) WITH ORDINALITY AS x(u, attribute_id, type, source, ts, ord)
             JOIN attributes a ON a.id = x.attribute_id
            ORDER BY x.ord
           RETURNING id, uuid, attribute_id, event_id, type, source, date_sighting)
         SELECT s.id, s.uuid::text, s.attribute_id::text, s.event_id, s.source, a.uuid::text AS attribute_uuid, e.uuid::text AS event_uuid, s.type, s.date_sighting::text AS ts
           FROM inserted s JOIN attributes a ON a.id = s.attribute_id JOIN events e ON e.id = s.event_id ORDER BY s.id`,
        [
          uuids,
          hits.map((h) => h.attribute_id),
          hits.map((h) => byIndex.get(h.idx)!.type),
          hits.map((h) => byIndex.get(h.idx)!.source),
          hits.map((h) => byIndex.get(h.idx)!.ts),
          p.orgId,
        ],
      );
      const valueOf = new Map(uuids.map((u, i) => [u, byIndex.get(hits[i].idx)!.value]));
      await client.query(
        `UPDATE events e SET sighting_timestamp = GREATEST(COALESCE(e.sighting_timestamp, 0), x.ts)
           FROM (SELECT u AS uuid, max(t) AS ts FROM unnest($1::uuid[], $2::bigint[]) AS y(u, t) GROUP BY u) x WHERE e.uuid = x.uuid`,
        [rows.map((r) => r.event_uuid), rows.map((r) => r.ts)],
      );
      const org = p.orgId === null ? null : (await client.query<{ name: string }>("SELECT name FROM organisations WHERE id = $1", [p.orgId])).rows[0]?.name ?? null;
      const changes: Change[] = rows.map((r) => ({
        kind: "sighting.created",
        entityType: "sighting",
        entityUuid: r.uuid,
        eventUuid: r.event_uuid,
        payload: { attribute_uuid: r.attribute_uuid, sighting_type: SIGHTING_TYPES[r.type], value: valueOf.get(r.uuid), organisation: org, timestamp: Number(r.ts) },
      }));
      await recordChanges(client, p, changes);
      const stored = rows.map((r) => ({ id: Number(r.id), uuid: r.uuid, attributeId: r.attribute_id, eventId: r.event_id, orgId: p.orgId, type: r.type, source: r.source, dateSighting: Number(r.ts) }));
      return { created: rows.length, capped, skipped, stored };
    });
  }

  /** The peer's P3 search envelope over `page()`: the sightings of attributes the caller may read, newest first. */
  async list(p: Principal | null, given: SightingListQuery): Promise<SightingSearch> {
    const started = Date.now();
    const page = await this.page(p, given, { select: HIT_SELECT });
    return {
      page: page.page,
      size: page.size,
      total: page.total,
      took: Date.now() - started,
      timed_out: false,
      max_score: null,
      results: (page.items as unknown as HitRecord[]).map(sightingHit),
    };
  }

  /**
   * The newest sightings of each of these attributes that the caller may read (readableSightingWhere),
   * at most `perAttribute` each, in one statement for a page of attributes (restSearch's
   * includeSightings). The statement reads at most `perAttribute` rows per attribute asked for, newest
   * first, so a much-sighted attribute can leave others fewer than `perAttribute`.
   */
  async ofAttributes(p: Principal | null, attributeUuids: readonly string[], perAttribute: number): Promise<Map<string, SightingHit[]>> {
    authorize(p, "sightings:read");
    const byAttribute = new Map<string, SightingHit[]>(attributeUuids.map((u) => [u, []]));
    if (attributeUuids.length === 0) return byAttribute;
    const rows = await this.ctx.db.prisma.sighting.findMany({
      select: HIT_SELECT,
      where: { AND: [readableSightingWhere(p), { attribute: { uuid: { in: [...attributeUuids] } } }] },
      orderBy: { id: "desc" },
      take: perAttribute * attributeUuids.length,
    });
    for (const s of rows) {
      const list = byAttribute.get(s.attribute.uuid);
      if (list && list.length < perAttribute) list.push(sightingHit(s));
    }
    return byAttribute;
  }

  /**
   * Deletes one sighting (MISP's sightings/delete): the administrator any they may read, anyone else
   * their own organisation's; any other is not found, as one that does not exist.
   */
  async delete(p: Principal | null, ref: { id: number } | { uuid: string }): Promise<void> {
    authorize(p, "sightings:delete");
    const where: Prisma.SightingWhereInput = { AND: [readableSightingWhere(p), "id" in ref ? { id: BigInt(ref.id) } : { uuid: ref.uuid }] };
    const s = await this.ctx.db.prisma.sighting.findFirst({ where, select: { id: true, uuid: true, orgId: true, attribute: { select: { uuid: true, event: { select: { uuid: true } } } } } });
    if (!s || (!isAdmin(p) && (p.orgId === null || s.orgId !== p.orgId))) throw errors.notFound("Sighting");
    await withTransaction(this.ctx.db.pool, async (client) => {
      const { rowCount } = await client.query("DELETE FROM sightings WHERE id = $1", [s.id]);
      if (!rowCount) throw errors.notFound("Sighting");
      await recordChanges(client, p, [{ kind: "sighting.deleted", entityType: "sighting", entityUuid: s.uuid, eventUuid: s.attribute.event.uuid, payload: { attribute_uuid: s.attribute.uuid } }]);
    });
  }

  /**
   * The sightings of attributes the caller may read (readableSightingWhere), newest first, as a
   * page of records loaded with `query` (GraphQL's selection; the envelope's select for `list`).
   */
  async page(p: Principal | null, given: SightingListQuery, query: SightingSelection = {}): Promise<Page<SightingRecord>> {
    authorize(p, "sightings:read");
    const q = parseInput(sightingListContract, given);
    const where: Prisma.SightingWhereInput = {
      AND: [readableSightingWhere(p), q.attributeUuid ? { attribute: { uuid: q.attributeUuid } } : {}, q.type !== undefined ? { type: q.type } : {}],
    };
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.sighting.findMany({ ...query, where, orderBy: { id: "desc" }, skip: (q.page - 1) * q.size, take: q.size }),
      prisma.sighting.count({ where }),
    ]);
    return pageOf(items, total, q);
  }
}
