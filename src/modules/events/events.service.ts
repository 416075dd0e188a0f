import crypto from "node:crypto";
import type { RetentionService } from "../retention/index.ts";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, type ValidationIssue } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import { EVENT_RESTORED, EVENT_SOFT_DELETED, recordChanges, type Change } from "../changes/index.ts";
import { canReadEvent, canWriteEvent, readableEventWhere, readableEventsSql } from "../../auth/distribution.ts";
import type { Prisma } from "../../platform/db/index.ts";
import type { EventDraft } from "./event-draft.ts";
import { eventUuidById, listEvents, loadEvent, loadEventHeadsByUuid, loadEventsByUuid, type AttributeCount, type EventHead, type EventView } from "./event-reader.ts";
import { ensureTags, writeEventDraft, type WriteResult } from "./event-writer.ts";
import { exportMispEvents, type MispExportOptions } from "./misp-export.ts";
import { parseMispEvent, type ParseOptions } from "./misp-parse.ts";
import { containsPattern, likeLiteral } from "../../platform/db/like.ts";
import { checkTagName } from "../tags/index.ts";
import { checkExclusiveTags, checkRequiredTaxonomies } from "../taxonomies/index.ts";
import { checkAssignableSharingGroups, type SharingGroupsService } from "../sharing-groups/index.ts";

export interface EventFilter {
  info?: string;
  uuid?: string;
  published?: boolean;
  /** Only events carrying every one of these tags (exact names). */
  tags?: string[];
  /** Only events owned by this organisation (numeric id). */
  orgId?: number;
  /** Omitted: soft-deleted events are listed too (the peer's list). */
  deleted?: boolean;
  /** The list only (MISP's index): events carrying at least one of these tags (exact names, with their case: MISP's tags.name is utf8mb3_bin). */
  anyTags?: string[];
  /** The list only: events carrying none of these tags. */
  noTags?: string[];
  /** The list only (MISP's index eventinfo): LIKE patterns on the lower-cased title (`%`, `_`, `\` escapes): one of `any` (when given), none of `none`. */
  infoLike?: { any: string[]; none: string[] };
  /**
   * The list only (MISP's index org): events created (Orgc) by one of these organisations, a
   * number being an id, else a uuid or a name ignoring case; one that names no organisation finds nothing.
   */
  orgc?: string[];
  /** The list only: events created by none of these (one that names no organisation is no condition). */
  notOrgc?: string[];
  /** The list only: events dated on or after / on or before these days (YYYY-MM-DD). */
  dateFrom?: string;
  dateUntil?: string;
  /** The list only: events whose last change / publication lies in this range (epoch seconds, both ends included). */
  timestamp?: EpochRange;
  publishTimestamp?: EpochRange;
  /** The list only: events extending this one (their extends_uuid, MISP's extended view). */
  extendsUuid?: string;
}

export interface EpochRange {
  from?: number;
  to?: number;
}

/** Fields of POST /events/ and PATCH /events/{uuid} (snake_case is the shim's business). */
export type { EventFields } from "./events.contracts.ts";
import type { EventFields } from "./events.contracts.ts";
import { parseInput } from "../../platform/errors.ts";
import { statisticsContract, type StatisticsInput } from "../../platform/statistics.ts";
import { eventStatistics, type EventStatistics } from "./event-statistics.ts";

export interface DeleteOptions {
  /** Hard delete: the event and everything in it are gone for good. Default: soft delete. */
  force?: boolean;
}

const now = () => Math.floor(Date.now() / 1000);

/** What @pothos/plugin-prisma planned for the GraphQL selection: the relations and columns to load. */
export type EventSelection = Pick<Prisma.EventFindManyArgs, "include" | "select">;
/** An event row as Prisma loads it, with whatever relations its selection included. */
export type EventRecord = Prisma.EventGetPayload<object>;

function eventFilterWhere(filter: EventFilter): Prisma.EventWhereInput {
  return {
    ...(filter.info ? { info: { contains: likeLiteral(filter.info), mode: "insensitive" as const } } : {}),
    ...(filter.uuid ? { uuid: filter.uuid } : {}),
    ...(filter.published !== undefined ? { published: filter.published } : {}),
    ...(filter.deleted !== undefined ? { deleted: filter.deleted } : {}),
    ...(filter.orgId !== undefined ? { orgId: filter.orgId } : {}),
    ...(filter.tags?.length ? { AND: filter.tags.map((name) => ({ tags: { some: { tag: { name } } } })) } : {}),
  };
}

export class EventsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly retention: RetentionService,
    private readonly sharingGroups: SharingGroupsService,
  ) {}

  /** `attributeCount: "all"`: the attributes inside objects are counted too (MISP's attribute_count). */
  async list(p: Principal | null, filter: EventFilter, req: PageRequest, opts: { attributeCount?: AttributeCount } = {}): Promise<Page<EventView>> {
    authorize(p, "events:read");
    const params: unknown[] = [];
    const where = [readableEventsSql(p, "e", params)];
    if (filter.info) {
      params.push(containsPattern(filter.info));
      where.push(`e.info ILIKE $${params.length}`);
    }
    if (filter.uuid) {
      params.push(filter.uuid);
      where.push(`e.uuid = $${params.length}`);
    }
    if (filter.published !== undefined) {
      params.push(filter.published);
      where.push(`e.published = $${params.length}`);
    }
    if (filter.deleted !== undefined) {
      params.push(filter.deleted);
      where.push(`e.deleted = $${params.length}`);
    }
    if (filter.orgId !== undefined) {
      params.push(filter.orgId);
      where.push(`e.org_id = $${params.length}`);
    }
    for (const name of filter.tags ?? []) {
      params.push(name);
      where.push(`EXISTS (SELECT 1 FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = e.id AND t.name = $${params.length})`);
    }
    const carriesAny = (names: string[]) => {
      params.push(names);
      return `EXISTS (SELECT 1 FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = e.id AND t.name = ANY($${params.length}::text[]))`;
    };
    if (filter.anyTags?.length) where.push(carriesAny(filter.anyTags));
    if (filter.noTags?.length) where.push(`NOT ${carriesAny(filter.noTags)}`);
    if (filter.infoLike) {
      const like = (pattern: string) => {
        params.push(pattern);
        return `lower(e.info) LIKE $${params.length}`;
      };
      if (filter.infoLike.any.length) where.push(`(${filter.infoLike.any.map(like).join(" OR ")})`);
      for (const pattern of filter.infoLike.none) where.push(`NOT ${like(pattern)}`);
    }
    // MISP's index: a number is an id as it is; a uuid (as written) or a name (either case) is looked up among all organisations, whose names everyone sees.
    const numeric = (r: string) => /^\d+$/.test(r);
    const orgsNamed = (refs: string[]) => {
      params.push(refs.filter(numeric), refs.filter((r) => !numeric(r)));
      const [ids, names] = [params.length - 1, params.length];
      return `(SELECT og.id FROM organisations og WHERE og.id::text = ANY($${ids}::text[]) OR og.uuid::text = ANY($${names}::text[]) OR upper(og.name) = ANY(SELECT upper(r) FROM unnest($${names}::text[]) r))`;
    };
    if (filter.orgc?.length) {
      where.push(`e.orgc_id IN ${orgsNamed(filter.orgc)}`);
      params.push(filter.orgc.filter((r) => !numeric(r)));
      where.push(`NOT EXISTS (SELECT 1 FROM unnest($${params.length}::text[]) r WHERE NOT EXISTS (SELECT 1 FROM organisations og WHERE og.uuid::text = r OR upper(og.name) = upper(r)))`);
    }
    if (filter.notOrgc?.length) where.push(`e.orgc_id NOT IN ${orgsNamed(filter.notOrgc)}`);
    if (filter.dateFrom !== undefined) {
      params.push(filter.dateFrom);
      where.push(`e.date >= $${params.length}::date`);
    }
    if (filter.dateUntil !== undefined) {
      params.push(filter.dateUntil);
      where.push(`e.date <= $${params.length}::date`);
    }
    const within = (column: string, range: EpochRange | undefined) => {
      for (const [bound, op] of [[range?.from, ">="], [range?.to, "<="]] as const) {
        if (bound === undefined) continue;
        params.push(bound);
        where.push(`e.${column} ${op} $${params.length}::bigint`);
      }
    };
    within("timestamp", filter.timestamp);
    within("publish_timestamp", filter.publishTimestamp);
    if (filter.extendsUuid !== undefined) {
      params.push(filter.extendsUuid);
      where.push(`e.extends_uuid = $${params.length}::uuid`);
    }
    const { items, total } = await listEvents(this.ctx.db.pool, where.join(" AND "), params, req.size, offsetOf(req), p, opts.attributeCount);
    return pageOf(await this.retention.withBadges(items), total, req);
  }

  /**
   * The same list for GraphQL: Prisma rows loaded with the selection the plugin planned, under the
   * same distribution rule (its Prisma rendering), in the same order.
   */
  async findPage(p: Principal | null, filter: EventFilter, req: PageRequest, selection: EventSelection): Promise<Page<EventRecord>> {
    authorize(p, "events:read");
    const where: Prisma.EventWhereInput = { AND: [readableEventWhere(p), eventFilterWhere(filter)] };
    const [items, total] = await Promise.all([
      this.ctx.db.prisma.event.findMany({ ...selection, where, orderBy: [{ timestamp: "desc" }, { id: "desc" }], skip: offsetOf(req), take: req.size }),
      this.ctx.db.prisma.event.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  /** One event for GraphQL (a soft-deleted one too); 404 when it is not readable. */
  async findOne(p: Principal | null, uuid: string, selection: EventSelection): Promise<EventRecord> {
    authorize(p, "events:read");
    const e = await this.ctx.db.prisma.event.findFirst({ ...selection, where: { AND: [readableEventWhere(p), { uuid }] } });
    if (!e) throw errors.notFound("Event");
    return e;
  }

  /**
   * Counts of the live events the caller may read whose last change lies in the range: published,
   * by threat level and by tag (the most frequent `top`, with how many distinct keys there are).
   */
  async statistics(p: Principal | null, input: StatisticsInput): Promise<EventStatistics> {
    authorize(p, "events:read");
    return eventStatistics(this.ctx, p, parseInput(statisticsContract, input));
  }

  /** 404 for events the caller may not read: existence is not disclosed. */
  async get(p: Principal | null, uuid: string): Promise<EventView> {
    const [e] = await this.getMany(p, [uuid]);
    if (!e) throw errors.notFound("Event");
    return e;
  }

  /**
   * The events of these uuids the caller may read, in the order asked (a page's reads in one statement); the others are left out.
   * `badges: false`: without the retention badges (a settings read after the events'), for answers that do not show them (MISP's);
   * `attributeCount` as `list` takes it.
   */
  async getMany(p: Principal | null, uuids: readonly string[], opts: { badges?: boolean; attributeCount?: AttributeCount } = {}): Promise<EventView[]> {
    authorize(p, "events:read");
    const byUuid = new Map((await loadEventsByUuid(this.ctx.db.pool, uuids, p, opts.attributeCount)).filter((e) => canReadEvent(p, e)).map((e) => [e.uuid, e]));
    const views = uuids.map((u) => byUuid.get(u)).filter((e): e is EventView => e !== undefined);
    return opts.badges === false ? views : this.retention.withBadges(views);
  }

  async create(p: Principal | null, fields: EventFields & { info: string; uuid?: string }): Promise<EventView> {
    authorize(p, "events:create");
    // Creating it published is publishing: the same scope as POST /events/{uuid}/publish.
    if (fields.published) authorize(p, "events:publish");
    const ts = now();
    const draft: EventDraft = {
      uuid: fields.uuid ?? crypto.randomUUID(),
      info: fields.info,
      date: fields.date ?? new Date().toISOString().slice(0, 10),
      threatLevel: fields.threatLevel ?? 4,
      analysis: fields.analysis ?? 0,
      distribution: fields.distribution ?? 0,
      sharingGroupId: fields.sharingGroupId ?? null,
      sharingGroup: null,
      published: fields.published ?? false,
      timestamp: ts,
      publishTimestamp: fields.published ? ts : 0,
      sightingTimestamp: null,
      locked: fields.locked ?? false,
      proposalEmailLock: false,
      protected: fields.protected ?? false,
      disableCorrelation: fields.disableCorrelation ?? false,
      extendsUuid: fields.extendsUuid ?? null,
      orgc: null,
      tags: [],
      galaxies: [],
      attributes: [],
      objects: [],
    };
    if (await loadEvent(this.ctx.db.pool, draft.uuid)) throw errors.conflict("An event with this uuid already exists");
    // A new event carries no tag yet: with required taxonomies enforced it cannot start published.
    if (draft.published) await checkRequiredTaxonomies(this.ctx.db.pool, null);
    if (draft.sharingGroupId !== null) await checkAssignableSharingGroups(this.ctx.db.pool, p, [{ id: draft.sharingGroupId, loc: ["sharingGroupId"] }]);
    await this.write(p, draft, { createOnly: true });
    return this.get(p, draft.uuid);
  }

  /** MISP JSON import: 201 when created, 200 when an existing event was updated or was already as new. */
  async importMisp(p: Principal | null, body: unknown, opts: ParseOptions & { edit?: boolean } = {}): Promise<{ result: WriteResult; skipped: ValidationIssue[]; event: EventView }> {
    // `edit`: MISP's events/edit, an update of an event the caller reads (404 otherwise), never a creation.
    authorize(p, opts.edit ? "events:update" : "events:create");
    const { draft, skipped } = parseMispEvent(body, opts);
    if (opts.edit) await this.get(p, draft.uuid);
    const result = await this.write(p, draft);
    return { result, skipped, event: await this.get(p, draft.uuid) };
  }

  /** Stores a validated draft (import, feeds, `pulled`: a server pull) in one transaction as the given caller. */
  async write(p: Principal, draft: EventDraft, opts: { pulled?: boolean; createOnly?: boolean } = {}): Promise<WriteResult> {
    if (p.orgId === null) throw errors.forbidden("Only users of an organisation can own events");
    const matcher = await this.ctx.warninglists.matcher();
    return withTransaction(this.ctx.db.pool, (client) =>
      writeEventDraft(client, p, draft, {
        ownerOrgId: p.orgId!,
        matcher,
        sharingGroups: this.sharingGroups,
        pulled: opts.pulled ?? false,
        createOnly: opts.createOnly ?? false,
        assertCanUpdate: (orgId) => {
          if (!canWriteEvent(p, { orgId })) throw errors.forbidden("The event belongs to another organisation");
        },
      }),
      // The writer's only effect outside SQL is the draft's sharing group ids, which it sets again.
      { retryDeadlocks: true },
    );
  }

  async exportMisp(p: Principal | null, uuid: string, opts: MispExportOptions = {}): Promise<{ Event: Record<string, unknown> }> {
    const e = await this.get(p, uuid);
    const [event] = await exportMispEvents(this.ctx.db.pool, [e], p!, { ...opts, instanceUrl: this.ctx.config.PUBLIC_URL });
    return event!;
  }

  /**
   * MISP's extended view: the live events extending this one (their extends_uuid) that the caller may
   * read, newest change first, at most `max`, in MISP's JSON form. The lookup and the read share one
   * REPEATABLE READ snapshot: an extension created, deleted or changed meanwhile is wholly in or
   * wholly out, never listed without its content or merged after its deletion.
   */
  async exportMispExtensions(p: Principal | null, uuid: string, opts: MispExportOptions & { max: number }): Promise<{ Event: Record<string, unknown> }[]> {
    authorize(p, "events:read");
    const { max, ...exportOpts } = opts;
    return withTransaction(this.ctx.db.pool, async (client) => {
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      const params: unknown[] = [];
      const where = [readableEventsSql(p, "e", params), "NOT e.deleted"];
      params.push(uuid);
      where.push(`e.extends_uuid = $${params.length}::uuid`);
      const { items } = await listEvents(client, where.join(" AND "), params, max, 0, p);
      return exportMispEvents(client, items, p!, { ...exportOpts, instanceUrl: this.ctx.config.PUBLIC_URL });
    });
  }

  /** The events of these uuids the caller may read in MISP's JSON form, in the order asked (a page of them in one statement per kind of content); the others are left out. */
  async exportMispMany(p: Principal | null, uuids: readonly string[], opts: MispExportOptions = {}): Promise<{ Event: Record<string, unknown> }[]> {
    return (await this.readMispMany(p, uuids, opts)).exported;
  }

  /**
   * `exportMispMany` with the events it read, for callers that need both without reading the events
   * twice: the ones `getMany` gives, in the order asked, without the attribute and object counts and
   * retention badges the export does not use (the counts under the reader's rule are a pass over
   * every attribute of the page, which the export then reads again).
   */
  async readMispMany(p: Principal | null, uuids: readonly string[], opts: MispExportOptions = {}): Promise<{ views: EventHead[]; exported: { Event: Record<string, unknown> }[] }> {
    authorize(p, "events:read");
    const byUuid = new Map((await loadEventHeadsByUuid(this.ctx.db.pool, uuids, p!)).filter((e) => canReadEvent(p, e)).map((e) => [e.uuid, e]));
    const views = uuids.map((u) => byUuid.get(u)).filter((e): e is EventHead => e !== undefined);
    return { views, exported: await exportMispEvents(this.ctx.db.pool, views, p!, { ...opts, instanceUrl: this.ctx.config.PUBLIC_URL }) };
  }

  /**
   * The uuid of the event with MISP's numeric id, or null. It says nothing about who may read the
   * event: the read or write the caller makes with the uuid checks that (and answers 404 alike).
   */
  async uuidOf(p: Principal | null, id: number): Promise<string | null> {
    authorize(p);
    return eventUuidById(this.ctx.db.pool, id);
  }

  async update(p: Principal | null, uuid: string, fields: EventFields): Promise<EventView> {
    authorize(p, "events:update");
    const { deleted, ...edits } = fields;
    if (deleted !== undefined) authorize(p, "events:delete");
    const editing = Object.values(edits).some((v) => v !== undefined);
    await this.mutate(p, uuid, async (client, e) => {
      const changes = deleted === undefined ? [] : await setDeleted(client, e, deleted);
      return editing ? [...changes, ...(await this.edit(client, p, e, edits))] : changes;
    });
    return this.get(p, uuid);
  }

  /** The field edits of an update, in its transaction: the timestamp moves forward, followers hear of it. */
  private async edit(client: import("pg").PoolClient, p: Principal, e: EventView, fields: Omit<EventFields, "deleted">): Promise<Change[]> {
    const sets: string[] = [];
    if (fields.sharingGroupId != null) await checkAssignableSharingGroups(client, p, [{ id: fields.sharingGroupId, loc: ["sharingGroupId"] }]);
    const params: unknown[] = [];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (fields.info !== undefined) set("info", fields.info);
    if (fields.date !== undefined) set("date", fields.date);
    if (fields.threatLevel !== undefined) set("threat_level", fields.threatLevel);
    if (fields.analysis !== undefined) set("analysis", fields.analysis);
    if (fields.distribution !== undefined) set("distribution", fields.distribution);
    if (fields.sharingGroupId !== undefined) set("sharing_group_id", fields.sharingGroupId);
    if (fields.locked !== undefined) set("locked", fields.locked);
    if (fields.protected !== undefined) set("protected", fields.protected);
    if (fields.disableCorrelation !== undefined) set("disable_correlation", fields.disableCorrelation);
    if (fields.extendsUuid !== undefined) set("extends_uuid", fields.extendsUuid);
    const publishing = fields.published !== undefined && fields.published !== e.published;
    if (publishing) {
      // Changing the published state is publishing or unpublishing, whatever the route.
      authorize(p, "events:publish");
      if (fields.published) await checkRequiredTaxonomies(client, e.id);
      set("published", fields.published);
      if (fields.published) set("publish_timestamp", now());
    }
    set("timestamp", Math.max(now(), e.timestamp + 1));
    params.push(e.id);
    await client.query(`UPDATE events SET ${sets.join(", ")}, updated_at = now() WHERE id = $${params.length}`, params);
    const changes: Change[] = [
      { kind: "event.updated", entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid, payload: { fields: Object.entries(fields).filter(([, v]) => v !== undefined).map(([k]) => k) } },
    ];
    if (publishing) changes.push({ kind: fields.published ? "event.published" : "event.unpublished", entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid });
    return changes;
  }

  async setPublished(p: Principal | null, uuid: string, published: boolean): Promise<EventView> {
    authorize(p, "events:publish");
    await this.mutate(p, uuid, async (client, e) => {
      if (e.published === published) return [];
      if (published) await checkRequiredTaxonomies(client, e.id);
      await client.query(
        `UPDATE events SET published = $1, publish_timestamp = CASE WHEN $1 THEN $2 ELSE publish_timestamp END, updated_at = now() WHERE id = $3`,
        [published, now(), e.id],
      );
      return [{ kind: published ? "event.published" : "event.unpublished", entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid }];
    });
    return this.get(p, uuid);
  }

  async tag(p: Principal | null, uuid: string, tagName: string, local = false): Promise<void> {
    authorize(p, "events:tag");
    const name = checkTagName(tagName, ["tag"]);
    await this.mutate(p, uuid, async (client, e) => {
      const carried = await client.query<{ name: string }>("SELECT t.name FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = $1", [e.id]);
      await checkExclusiveTags(client, name, carried.rows.map((r) => r.name));
      const ids = await ensureTags(client, [{ name, colour: null, exportable: true, local }], p);
      const inserted = await client.query(
        "INSERT INTO event_tags (event_id, tag_id, local) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        [e.id, ids.get(name), local],
      );
      if (!inserted.rowCount) return [];
      await client.query("UPDATE events SET timestamp = GREATEST(timestamp + 1, $2), updated_at = now() WHERE id = $1", [e.id, now()]);
      return [{ kind: "event.tagged", entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid, payload: { tag: name } }];
    });
  }

  async untag(p: Principal | null, uuid: string, tagName: string): Promise<void> {
    authorize(p, "events:tag");
    await this.mutate(p, uuid, async (client, e) => {
      const removed = await client.query(
        "DELETE FROM event_tags et USING tags t WHERE et.tag_id = t.id AND et.event_id = $1 AND lower(t.name) = lower($2)",
        [e.id, tagName],
      );
      if (!removed.rowCount) throw errors.notFound("Tag on this event");
      await client.query("UPDATE events SET timestamp = GREATEST(timestamp + 1, $2), updated_at = now() WHERE id = $1", [e.id, now()]);
      return [{ kind: "event.untagged", entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid, payload: { tag: tagName } }];
    });
  }

  /**
   * Soft delete by default (as the peer and MISP): the event stays readable with `deleted: true`,
   * restorable, and leaves search, hunts and correlations; deleting it again changes nothing.
   * `force`: hard delete of the event with its attributes, objects, references, tags and sightings
   * (the foreign keys cascade); the change records carry what consumers need once the rows are gone.
   */
  async delete(p: Principal | null, uuid: string, opts: DeleteOptions = {}): Promise<void> {
    authorize(p, "events:delete");
    if (!opts.force) return this.mutate(p, uuid, (client, e) => setDeleted(client, e, true));
    await this.mutate(p, uuid, async (client, e) => {
      const attrs = await client.query<{
        uuid: string;
        type: string;
        value: string;
        object_uuid: string | null;
        distribution: number;
        sharing_group_id: number | null;
        object_distribution: number | null;
        object_sharing_group_id: number | null;
      }>(
        `SELECT a.uuid::text, a.type, a.value, o.uuid::text AS object_uuid, a.distribution, a.sharing_group_id,
                o.distribution AS object_distribution, o.sharing_group_id AS object_sharing_group_id
           FROM attributes a LEFT JOIN objects o ON o.id = a.object_id WHERE a.event_id = $1`,
        [e.id],
      );
      const changes: Change[] = [
        {
          kind: "event.deleted",
          entityType: "event",
          entityUuid: e.uuid,
          eventUuid: e.uuid,
          // The access fields let consumers check, once the row is gone, who could read the event.
          payload: {
            event_name: e.info,
            organisation_uuid: e.orgc.uuid,
            organisation_name: e.orgc.name,
            distribution: e.distribution,
            sharing_group_id: e.sharingGroupId,
            org_id: e.orgId,
            orgc_id: e.orgcId,
          },
        },
        ...attrs.rows.map((a) => ({
          kind: "attribute.deleted",
          entityType: "attribute" as const,
          entityUuid: a.uuid,
          eventUuid: e.uuid,
          // The levels let consumers apply the distribution rule once the rows are gone.
          payload: {
            event_title: e.info,
            attribute_type: a.type,
            attribute_value: a.value,
            object_uuid: a.object_uuid,
            distribution: a.distribution,
            sharing_group_id: a.sharing_group_id,
            object_distribution: a.object_distribution,
            object_sharing_group_id: a.object_sharing_group_id,
            cascade: true,
          },
        })),
      ];
      const objects = await client.query<{ uuid: string; name: string; distribution: number; sharing_group_id: number | null }>(
        "SELECT uuid::text, name, distribution, sharing_group_id FROM objects WHERE event_id = $1 ORDER BY id",
        [e.id],
      );
      changes.push(
        ...objects.rows.map((o) => ({
          kind: "object.deleted",
          entityType: "object" as const,
          entityUuid: o.uuid,
          eventUuid: e.uuid,
          payload: { event_title: e.info, object_name: o.name, distribution: o.distribution, sharing_group_id: o.sharing_group_id, cascade: true },
        })),
      );
      await client.query("DELETE FROM events WHERE id = $1", [e.id]);
      return changes;
    });
  }

  /** Undoes a soft delete (PATCH `{"deleted": false}` does the same); a live event is answered as it is. */
  async restore(p: Principal | null, uuid: string): Promise<EventView> {
    authorize(p, "events:delete");
    await this.mutate(p, uuid, (client, e) => setDeleted(client, e, false));
    return this.get(p, uuid);
  }

  /** Loads, checks read and write access, runs `fn` and records its changes in one transaction. */
  private async mutate(p: Principal, uuid: string, fn: (client: import("pg").PoolClient, e: EventView) => Promise<Change[]>): Promise<void> {
    await withTransaction(this.ctx.db.pool, async (client) => {
      const locked = await client.query("SELECT id FROM events WHERE uuid = $1 FOR UPDATE", [uuid]);
      const e = locked.rowCount ? await loadEvent(client, uuid) : null;
      if (!e || !canReadEvent(p, e)) throw errors.notFound("Event");
      if (!canWriteEvent(p, e)) throw errors.forbidden("The event belongs to another organisation");
      const changes = await fn(client, e);
      if (changes.length) await recordChanges(client, p, changes);
    });
  }
}

/** Flags or unflags an event as soft-deleted; no change record when it already is as asked. */
async function setDeleted(client: import("pg").PoolClient, e: EventView, deleted: boolean): Promise<Change[]> {
  if (e.deleted === deleted) return [];
  await client.query("UPDATE events SET deleted = $2, deleted_at = CASE WHEN $2 THEN now() END, updated_at = now() WHERE id = $1", [e.id, deleted]);
  return [{ kind: deleted ? EVENT_SOFT_DELETED : EVENT_RESTORED, entityType: "event", entityUuid: e.uuid, eventUuid: e.uuid }];
}
