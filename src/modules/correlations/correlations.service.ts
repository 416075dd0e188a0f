import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, type Principal } from "../../auth/principal.ts";
import { correlationDocuments } from "../../indexing/documents.ts";
import { pairsOfAttributes, type PairDetail } from "./correlation-store.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { exclusionCreateContract, type ExclusionCreate } from "./correlations.contracts.ts";
import type { AuditService } from "../audit/index.ts";
import { canReadEvent, canReadInEvent, searchAccessOf } from "../../auth/distribution.ts";
import { loadEvent } from "../events/index.ts";
import { parseUserQuery, type SearchPage, type SearchService } from "../search/index.ts";
import { correlationStats, documentsPerBucket, relatedEventsOf, type CorrelationStats, type KeyCount, type RelatedEvent } from "./correlation-aggregates.ts";
import { purgeCorrelations, type PurgeProgress } from "./correlation-purge.ts";
import { HISTOGRAM_INTERVALS, histogramOfCounts, histogramOverSearch, isHistogramInterval, type HistogramBucket } from "./histogram.ts";
import { findRebuild, queueRebuild, type RebuildRow } from "./rebuild.ts";

/** The peer's exact filters of GET /correlations/. */
export const CORRELATION_FILTERS = ["source_attribute_uuid", "source_event_uuid", "target_attribute_uuid", "target_event_uuid", "match_type"] as const;
export type CorrelationFilters = Partial<Record<(typeof CORRELATION_FILTERS)[number], string>>;

/** Related events listed per event read, unless the caller asks for another number. */
export const RELATED_EVENTS_DEFAULT = 100;
export const RELATED_EVENTS_MAX = 1000;

/** A correlation document in the peer's raw-hit shape. */
export interface CorrelationHit {
  _index: "svc-correlations";
  _id: string;
  _score: null;
  _source: Record<string, unknown>;
}

export interface Exclusion {
  id: number;
  value: string;
  comment: string;
  created_by: number | null;
  created_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The distribution rule for a pair: the caller reads both of its attributes. */
function canReadPair(p: Principal, d: PairDetail): boolean {
  const side = (s: "source" | "target") => {
    const object = d[`${s}_object_distribution`];
    return canReadInEvent(
      p,
      { distribution: d[`${s}_event_distribution`], sharingGroupId: d[`${s}_event_sharing_group_id`], orgId: d[`${s}_event_org_id`], orgcId: d[`${s}_event_orgc_id`] },
      { distribution: d[`${s}_attribute_distribution`], sharingGroupId: d[`${s}_attribute_sharing_group_id`] },
      object === null ? null : { distribution: object, sharingGroupId: d[`${s}_object_sharing_group_id`] },
    );
  };
  return side("source") && side("target");
}

/**
 * Correlations: searched through the correlations index (both directions of each pair), counted
 * from PostgreSQL, rebuilt by a resumable job, deleted all at once, and tuned by exclusions. A
 * caller sees a pair only when they may read both of its attributes (distribution).
 */
export class CorrelationsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
    private readonly search: SearchService,
  ) {}

  list(p: Principal | null, filters: CorrelationFilters, page: { page: number; size: number }): Promise<SearchPage> {
    authorize(p, "correlations:read");
    for (const [name, value] of Object.entries(filters)) {
      if (value === undefined) continue;
      const ok = name === "match_type" ? ["term", "composite", "cidr"].includes(value) : UUID.test(value);
      if (!ok) throw errors.invalidInput([name], name === "match_type" ? "must be term, composite or cidr" : "must be a UUID", value);
    }
    return this.search.search(p, "correlations", {
      query: "",
      page: page.page,
      size: page.size,
      sortBy: "@timestamp",
      sortOrder: "desc",
      includeDeleted: true,
      filters: Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as Record<string, string>,
    });
  }

  /**
   * The correlations of listed attributes, as the peer's raw hits with the attribute as source.
   * Empty without correlations:read; pairs with an attribute the caller may not read are left out.
   */
  async ofAttributes(p: Principal | null, uuids: string[]): Promise<Map<string, CorrelationHit[]>> {
    const out = new Map<string, CorrelationHit[]>(uuids.map((u) => [u, []]));
    if (!p || !hasScope(p, "correlations:read") || uuids.length === 0) return out;
    const wanted = new Set(uuids);
    for (const pair of await pairsOfAttributes(this.ctx.db.pool, uuids)) {
      if (!canReadPair(p, pair)) continue;
      for (const doc of correlationDocuments(pair)) {
        const src = doc.source as Record<string, unknown>;
        const mine = src.source_attribute_uuid as string;
        if (wanted.has(mine)) out.get(mine)!.push({ _index: "svc-correlations", _id: doc.id, _score: null, _source: src });
      }
    }
    return out;
  }

  async stats(p: Principal | null): Promise<CorrelationStats> {
    authorize(p, "correlations:read");
    return this.search.limited(p, () => correlationStats(this.ctx.db.searchPool, p));
  }

  /**
   * The 10 events with most pairs with `eventUuid`, as `{key: event uuid, doc_count: pairs}`, from
   * PostgreSQL. 404 for an event the caller may not read; events they may not read are left out.
   */
  async topEvents(p: Principal | null, eventUuid: string): Promise<KeyCount[]> {
    authorize(p, "correlations:read");
    if (!UUID.test(eventUuid)) throw errors.invalidInput(["sourceEventUuid"], "must be a UUID", eventUuid.slice(0, 100));
    const event = await loadEvent(this.ctx.db.pool, eventUuid);
    if (!event || !canReadEvent(p, event)) throw errors.notFound("Event");
    const related = (await relatedEventsOf(this.ctx.db.pool, p, [eventUuid], 10)).get(eventUuid) ?? [];
    return related.map((r) => ({ key: r.uuid, docCount: r.correlationCount }));
  }

  /**
   * The events each listed event correlates with (events the caller may read, most pairs first,
   * at most `limit` each). Empty without correlations:read, as the correlations of attributes.
   */
  async relatedEvents(p: Principal | null, eventUuids: string[], limit = RELATED_EVENTS_DEFAULT): Promise<Map<string, RelatedEvent[]>> {
    if (!Number.isInteger(limit) || limit < 1 || limit > RELATED_EVENTS_MAX) {
      throw errors.invalidField(["args", "limit"], `must be an integer from 1 to ${RELATED_EVENTS_MAX}`, limit);
    }
    if (!p || !hasScope(p, "correlations:read")) return new Map(eventUuids.map((u) => [u, []]));
    return relatedEventsOf(this.ctx.db.pool, p, eventUuids, limit);
  }

  /**
   * Correlation documents per day, week or month. Without a query (or with one that matches
   * everything) counted from PostgreSQL; with one, over the documents the search finds.
   */
  async histogram(p: Principal | null, query: string, interval: string): Promise<HistogramBucket[]> {
    authorize(p, "correlations:read");
    if (!isHistogramInterval(interval)) throw errors.invalidInput(["interval"], `must be one of ${HISTOGRAM_INTERVALS.join(", ")}`, interval.slice(0, 100));
    return this.search.limited(p, async () => {
      const ast = parseUserQuery(query);
      if (ast.kind === "matchAll") return histogramOfCounts(await documentsPerBucket(this.ctx.db.searchPool, p, interval), interval);
      return histogramOverSearch(this.ctx.search, searchAccessOf(p), ast, interval, this.ctx.config.SEARCH_TIMEOUT_MS);
    });
  }

  /**
   * Deletes every pair (their documents follow through the change records) and cancels queued or
   * running rebuilds; audited with what was done, also when it fails halfway.
   */
  async deleteAll(p: Principal | null): Promise<PurgeProgress> {
    authorize(p, "correlations:delete", "correlations:admin");
    const progress: PurgeProgress = { deleted: 0, cancelledRebuilds: [] };
    let completed = false;
    try {
      await purgeCorrelations(this.ctx.db.pool, p, progress);
      completed = true;
      return progress;
    } finally {
      await this.audit.record(p, {
        action: "correlations.deleted",
        resourceType: "correlation",
        metadata: { pairs: progress.deleted, cancelled_rebuilds: progress.cancelledRebuilds, completed },
      });
    }
  }

  /** Queues a full rebuild; the pairs that already hold are kept (and not announced again). */
  async startRebuild(p: Principal | null): Promise<{ rebuild: RebuildRow; jobId: string }> {
    authorize(p, "correlations:create", "correlations:admin");
    const queued = await queueRebuild(this.ctx, p.userId);
    await this.audit.record(p, { action: "correlations.rebuild_requested", resourceType: "correlation_rebuild", resourceId: queued.rebuild.id });
    return queued;
  }

  async rebuild(p: Principal | null, id: number): Promise<RebuildRow> {
    authorize(p, "correlations:read");
    const row = await findRebuild(this.ctx.db.pool, id);
    if (!row) throw errors.notFound("Correlation rebuild");
    return row;
  }

  async exclusions(p: Principal | null): Promise<Exclusion[]> {
    authorize(p, "correlations:read");
    const { rows } = await this.ctx.db.pool.query<Exclusion>("SELECT id, value, comment, created_by, created_at FROM correlation_exclusions ORDER BY id");
    return rows;
  }

  /**
   * A value (`%` matches any run of characters) that stops correlating. Existing pairs with that
   * value stay until their attributes are correlated again, e.g. by a rebuild.
   */
  async addExclusion(p: Principal | null, given: ExclusionCreate): Promise<Exclusion> {
    authorize(p, "correlations:admin");
    const { value, comment } = parseInput(exclusionCreateContract, given);
    const { prisma } = this.ctx.db;
    const row = await prisma
      .$transaction(async (tx) => {
        const created = await tx.correlationExclusion.create({ data: { value, comment, createdBy: p.userId } });
        await this.audit.record(p, { action: "correlations.exclusion_added", resourceType: "correlation_exclusion", resourceId: created.id, metadata: { value } }, tx);
        return created;
      })
      .catch((err: unknown) => {
        if ((err as { code?: string }).code === "P2002") throw errors.conflict("This exclusion exists already");
        throw err;
      });
    return { id: row.id, value: row.value, comment: row.comment, created_by: row.createdBy, created_at: row.createdAt };
  }

  async deleteExclusion(p: Principal | null, id: number): Promise<void> {
    authorize(p, "correlations:admin");
    await this.ctx.db.prisma.$transaction(async (tx) => {
      const row = await tx.correlationExclusion.findUnique({ where: { id } });
      if (!row) throw errors.notFound("Correlation exclusion");
      await tx.correlationExclusion.delete({ where: { id } });
      await this.audit.record(p, { action: "correlations.exclusion_deleted", resourceType: "correlation_exclusion", resourceId: id, metadata: { value: row.value } }, tx);
    });
  }
}
