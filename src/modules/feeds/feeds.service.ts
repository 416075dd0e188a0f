import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { InputError, errors, parseInput, snakeCase } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { SkipLimit } from "../../platform/paging.ts";
import type { Feed, Prisma } from "../../generated/prisma/client.ts";

/** What a GraphQL selection asks to load with feeds (@pothos/plugin-prisma's query; a feed has no relations, so at most a select). */
export type FeedSelection = Pick<Prisma.FeedFindManyArgs, "select">;
import type { AuditService } from "../audit/index.ts";
import { queueRun } from "../tasks/index.ts";
import type { TaskRunRow } from "../tasks/index.ts";
import { fetchFeedTask } from "./fetch-feed-task.ts";
import { feedSettingsSchema, networkUrlProblem, type FeedFormat } from "./feed-schema.ts";
import { feedCreateContract, feedPatchContract, feedPreviewContract, type FeedInput, type FeedPatch, type FeedPreviewInput } from "./feeds.contracts.ts";
import { deleteUpload, findUpload, insertUpload, type StoredUpload } from "./feed-upload-store.ts";
import { stageUpload, storeUpload, UPLOAD_KEY, type StagedUpload, type UploadResult } from "./feed-upload.ts";
import { canAccessFeed, canFeedFrom, canFetchFeed, canPreviewUpload, FETCH_SCOPES, mergeHeaders, presentFeed, readableFeedWhere, type FeedAction } from "./feeds.policy.ts";
import { csvRows, freetextRows, jsonRows, readCapped } from "./ingest/indicators.ts";
import { FeedContentError, openFeedDocument } from "./ingest/ingest.ts";

export type PreviewRow = { where: string; value: string; type: string } | { where: string; error: string };

/**
 * Feeds and their uploads. Who may do what is feeds.policy.ts: a feed belongs to its organisation
 * (others get 404), its headers are write-only, an upload serves its organisation only.
 */
export class FeedsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /** `query`: what a GraphQL selection loads with them; headers are redacted whatever it asks. */
  async list(p: Principal | null, page: SkipLimit, query: FeedSelection = {}): Promise<Feed[]> {
    authorize(p, "feeds:read");
    const feeds = await this.ctx.db.prisma.feed.findMany({ ...query, where: readableFeedWhere(p), orderBy: { id: "asc" }, skip: page.skip, take: page.limit });
    return feeds.map(presentFeed);
  }

  /** The same list as a page with its total (GraphQL's paging). */
  async listPage(p: Principal | null, req: PageRequest, query: FeedSelection = {}): Promise<Page<Feed>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size }, query);
    return pageOf(items, await this.ctx.db.prisma.feed.count({ where: readableFeedWhere(p!) }), req);
  }

  async get(p: Principal | null, id: number, query: FeedSelection = {}): Promise<Feed> {
    authorize(p, "feeds:read");
    const feed = await this.ctx.db.prisma.feed.findFirst({ ...query, where: { id, ...readableFeedWhere(p) } });
    if (!feed) throw errors.notFound("Feed");
    return presentFeed(feed);
  }

  /** An uploaded feed is ingested once, at once, as its creator (spec 3.3); nothing recurring is scheduled. */
  async create(p: Principal | null, given: FeedInput): Promise<{ feed: Feed; ingestion: TaskRunRow | null }> {
    authorize(p, "feeds:create");
    requireUser(p);
    if (p.orgId === null) throw errors.forbidden("Only users of an organisation can create feeds");
    const orgId = p.orgId;
    const input = parseInput(feedCreateContract, given);
    const sourceFormat = input.sourceFormat;
    const checked = this.checkSource(input.inputSource, input.url, input.settings);
    if (input.inputSource === "local") authorize(p, ...FETCH_SCOPES);
    const headers = checkedHeaders(null, input.headers ?? null);
    const result = await withTransaction(this.ctx.db.pool, async (client) => {
      const upload = input.inputSource === "local" ? await this.checkUpload(client, p, input.url, sourceFormat, { orgId }) : null;
      const settings = withLocalFile(checked, upload);
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO feeds (name, provider, url, source_format, input_source, enabled, distribution, fixed_event, event_uuid, publish, override_ids, tags, rules, settings, headers, org_id, created_by, skip_warninglisted)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id`,
        [
          input.name, input.provider, input.url, sourceFormat, input.inputSource, input.enabled ?? false, input.distribution ?? 0, input.fixedEvent ?? false,
          input.eventUuid ?? null, input.publish ?? false, input.overrideIds ?? false, input.tags ?? [], json(input.rules), json(settings), json(headers), orgId, p.userId,
          input.skipWarninglisted ?? false,
        ],
      );
      const ingestion = input.inputSource === "local" ? await this.queueFetch(client, p, rows[0].id) : null;
      return { id: rows[0].id, ingestion };
    });
    await this.audit.record(p, { action: "feed.created", resourceType: "feed", resourceId: result.id, metadata: { name: input.name, input_source: input.inputSource } });
    return { feed: await this.get(p, result.id), ingestion: result.ingestion };
  }

  /**
   * Replacing an uploaded file is a PATCH of `url`; the next fetch reads it. settings.localFile is
   * always the upload's own name and size (what a client sends there is not kept).
   * `headers` replaces the set; a header sent back with its redacted value keeps its stored value.
   */
  async update(p: Principal | null, id: number, given: FeedPatch): Promise<Feed> {
    authorize(p, "feeds:update");
    const patch = parseInput(feedPatchContract, given);
    const current = await this.find(p, id, "update");
    const inputSource = patch.inputSource ?? (current.inputSource as NonNullable<FeedPatch["inputSource"]>);
    const sourceFormat = patch.sourceFormat ?? (current.sourceFormat as FeedFormat);
    const checked = this.checkSource(inputSource, patch.url ?? current.url, patch.settings === undefined ? current.settings : patch.settings);
    const next = {
      name: patch.name ?? current.name,
      provider: patch.provider ?? current.provider,
      url: patch.url ?? current.url,
      sourceFormat,
      inputSource,
      enabled: patch.enabled ?? current.enabled,
      distribution: patch.distribution ?? current.distribution,
      fixedEvent: patch.fixedEvent ?? current.fixedEvent,
      eventUuid: patch.eventUuid === undefined ? current.eventUuid : patch.eventUuid,
      publish: patch.publish ?? current.publish,
      overrideIds: patch.overrideIds ?? current.overrideIds,
      skipWarninglisted: patch.skipWarninglisted ?? current.skipWarninglisted,
      tags: patch.tags ?? current.tags,
      rules: patch.rules === undefined ? current.rules : patch.rules,
      headers: patch.headers === undefined ? current.headers : checkedHeaders(current.headers, patch.headers),
    };
    await withTransaction(this.ctx.db.pool, async (client) => {
      const upload = inputSource === "local" ? await this.checkUpload(client, p, next.url, sourceFormat, current) : null;
      const settings = withLocalFile(checked, upload);
      await client.query(
        `UPDATE feeds SET name = $2, provider = $3, url = $4, source_format = $5, input_source = $6, enabled = $7, distribution = $8, fixed_event = $9,
                event_uuid = $10, publish = $11, override_ids = $12, tags = $13, rules = $14, settings = $15, headers = $16, skip_warninglisted = $17, updated_at = now() WHERE id = $1`,
        [
          id, next.name, next.provider, next.url, next.sourceFormat, next.inputSource, next.enabled, next.distribution, next.fixedEvent,
          next.eventUuid, next.publish, next.overrideIds, next.tags, json(next.rules), json(settings), json(next.headers), next.skipWarninglisted,
        ],
      );
    });
    const feed = await this.get(p, id);
    await this.audit.record(p, { action: "feed.updated", resourceType: "feed", resourceId: id, metadata: { fields: Object.keys(patch).map(snakeCase) } });
    return feed;
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "feeds:delete");
    await this.find(p, id, "delete");
    await withTransaction(this.ctx.db.pool, async (client) => {
      await client.query("DELETE FROM scheduled_tasks WHERE task = $1 AND kwargs->>'feed_id' = $2", [fetchFeedTask.name, String(id)]);
      await client.query("DELETE FROM feeds WHERE id = $1", [id]);
    });
    await this.audit.record(p, { action: "feed.deleted", resourceType: "feed", resourceId: id });
  }

  /** One fetch now, as the caller; its status is the task run's. */
  async fetch(p: Principal | null, id: number): Promise<TaskRunRow> {
    authorize(p, "feeds:fetch");
    requireUser(p);
    authorize(p, ...FETCH_SCOPES);
    await this.find(p, id, "fetch");
    return withTransaction(this.ctx.db.pool, (client) => this.queueFetch(client, p, id));
  }

  /**
   * The first `limit` rows of a csv, json or freetext source as ingestion would read them (value,
   * detected or configured type, or why it would be rejected), without writing anything.
   */
  async preview(p: Principal | null, format: Exclude<FeedFormat, "sharing">, given: FeedPreviewInput): Promise<PreviewRow[]> {
    authorize(p, "feeds:preview");
    const source = parseInput(feedPreviewContract, given);
    const limit = source.limit ?? (format === "freetext" ? 10 : 5);
    const settings = this.checkSource(source.inputSource, source.url, source.settings) ?? {};
    const upload = source.inputSource === "local" ? await this.checkUpload(this.ctx.db.pool, p, source.url, format, null) : null;
    const location = { url: source.url, sourceFormat: format, inputSource: source.inputSource, headers: source.headers ?? null, etag: null, lastModified: null, orgId: upload?.orgId ?? p.orgId };
    const doc = await openFeedDocument({ app: this.ctx }, location).catch((err: unknown) => {
      throw err instanceof FeedContentError ? errors.badRequest(err.message) : err;
    });
    const rows: PreviewRow[] = [];
    try {
      const reader = { csv: csvRows, json: jsonRows, freetext: freetextRows }[format](doc.stream, feedSettingsSchema.parse(settings));
      for await (const row of reader) {
        rows.push("rejected" in row ? { where: row.where, error: row.rejected } : { where: row.where, value: row.value, type: row.type });
        if (rows.length >= limit) break;
      }
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof Error) throw errors.badRequest(`The ${format} source cannot be read: ${err.message}`);
      throw err;
    } finally {
      doc.stream.destroy();
      await doc.close();
    }
    return rows;
  }

  /** A MISP feed's manifest, page by page (0-based, as the peer). */
  async explore(p: Principal | null, id: number, page: number, limit: number): Promise<{ events: Record<string, unknown>[]; total: number; page: number; limit: number }> {
    authorize(p, "feeds:read");
    const feed = await this.find(p, id, "read");
    if (feed.sourceFormat !== "sharing") throw errors.badRequest("Feed is not a MISP feed");
    // A url stored before urls were parsed at validation: refused as a bad one is now.
    const problem = feed.inputSource === "network" ? networkUrlProblem(feed.url) : null;
    if (problem) throw errors.invalidInput(["feedId"], `this feed's url ${problem}; change it with PATCH /feeds/${id}`, feed.url.slice(0, 200));
    const doc = await openFeedDocument({ app: this.ctx }, feed).catch((err: unknown) => {
      throw err instanceof FeedContentError ? errors.badRequest(err.message) : err;
    });
    let manifest: unknown;
    try {
      manifest = JSON.parse(await readCapped(doc.stream, 64 * 1024 * 1024, "manifest.json"));
    } catch (err) {
      throw errors.badRequest(`manifest.json cannot be read: ${(err as Error).message}`);
    } finally {
      await doc.close();
    }
    if (manifest === null || typeof manifest !== "object" || Array.isArray(manifest)) throw errors.badRequest("manifest.json must be an object keyed by event uuid");
    const entries = Object.entries(manifest as Record<string, Record<string, unknown>>);
    return { events: entries.slice(page * limit, (page + 1) * limit).map(([uuid, e]) => ({ uuid, ...(e ?? {}) })), total: entries.length, page, limit };
  }

  /** Streams the raw upload to a private temporary file (the caller discards it with `discardStaged`). */
  async stage(p: Principal | null, filename: string, stream: Readable, truncated: () => boolean): Promise<StagedUpload> {
    authorize(p, "feeds:create");
    uploader(p);
    return stageUpload(path.join(this.ctx.config.DATA_DIR, "tmp"), filename, stream, truncated);
  }

  /** Stores a staged upload as the caller's organisation's; a refused one leaves nothing behind. */
  async upload(p: Principal | null, staged: StagedUpload, sourceFormat: string): Promise<UploadResult> {
    authorize(p, "feeds:create");
    const { userId, orgId } = uploader(p);
    let recorded: string | null = null;
    let result: UploadResult;
    try {
      result = await storeUpload(this.ctx.storage, staged, sourceFormat, async (key, format) => {
        await insertUpload(this.ctx.db.pool, { key, orgId, userId, filename: staged.filename, size: staged.size, sourceFormat: format });
        recorded = key;
      });
    } catch (err) {
      if (recorded) await deleteUpload(this.ctx.db.pool, recorded);
      throw err;
    }
    await this.audit.record(p, { action: "feed.uploaded", resourceType: "feed_upload", metadata: { key: result.key, filename: result.filename, size: result.size, source_format: result.source_format } });
    return result;
  }

  async discardStaged(staged: StagedUpload | null): Promise<void> {
    if (staged) await fs.promises.rm(staged.path, { force: true });
  }

  private queueFetch(client: Pick<import("pg").PoolClient, "query">, p: Principal & { userId: number }, feedId: number): Promise<TaskRunRow> {
    return queueRun(
      client,
      { scheduledTaskId: null, task: fetchFeedTask.name, args: [], kwargs: { feed_id: feedId }, trigger: "manual", runAsUserId: p.userId, grantScopes: scopesOf(p) },
      fetchFeedTask,
    );
  }

  /** The stored feed (headers included) when the caller may act on it; 404 otherwise, so other organisations' feeds do not show. */
  private async find(p: Principal, id: number, action: FeedAction | "fetch"): Promise<Feed> {
    const feed = await this.ctx.db.prisma.feed.findUnique({ where: { id } });
    if (!feed || !(action === "fetch" ? canFetchFeed(p, feed) : canAccessFeed(p, feed, action))) throw errors.notFound("Feed");
    return feed;
  }

  /**
   * A local feed's url (or a preview's) must be an upload the caller may use: of the feed's
   * organisation, or for a preview (`feed` null) of the caller's; any other key is 404, as a
   * missing one. Inside a transaction the upload stays locked against the clean-up until it ends.
   */
  private async checkUpload(sql: Sql, p: Principal, key: string, format: FeedFormat, feed: { orgId: number } | null): Promise<StoredUpload> {
    const upload = await findUpload(sql, key, feed !== null);
    if (!upload || !(feed ? canFeedFrom(p, upload, feed) : canPreviewUpload(p, upload))) throw errors.notFound("Upload");
    const isArchive = (await this.ctx.storage.size(`${key}/manifest.json`)) !== null;
    const isFile = (await this.ctx.storage.size(key)) !== null;
    if (!isArchive && !isFile) throw errors.notFound("Upload");
    if (isArchive !== (format === "sharing")) throw errors.invalidInput(["sourceFormat"], isArchive ? "this upload is a sharing archive (a MISP feed): source_format must be sharing" : "this upload is not a sharing archive (a MISP feed)", format);
    return upload;
  }

  /** The url's shape (an upload key, or an http(s) URL as fetches parse it) and the settings. */
  private checkSource(inputSource: string, url: string, settings: unknown): Record<string, unknown> | null {
    if (inputSource === "local") {
      if (!UPLOAD_KEY.test(url)) throw errors.invalidInput(["url"], "a local feed's url must be the key returned by POST /feeds/upload", url.slice(0, 200));
    } else {
      const problem = networkUrlProblem(url);
      if (problem) throw errors.invalidInput(["url"], problem, url.slice(0, 200));
    }
    if (settings === null || settings === undefined) return null;
    // Given settings passed the contract; stored ones are checked again, as they may predate a rule.
    try {
      return parseInput(feedSettingsSchema, settings) as Record<string, unknown>;
    } catch (err) {
      throw err instanceof InputError ? err.within(["settings"]) : err;
    }
  }
}

/** Uploads belong to an organisation: the uploader's. */
function uploader(p: Principal): { userId: number; orgId: number } {
  requireUser(p);
  if (p.orgId === null) throw errors.forbidden("Only users of an organisation can upload feed files");
  return { userId: p.userId, orgId: p.orgId };
}

/**
 * Settings to store: a local feed's localFile is its upload's name and size, which the server
 * knows (a client's value may be stale or wrong); a network feed has no local file. Only for an
 * upload recorded without its name (stored before uploads were recorded) is the settings' value kept.
 */
function withLocalFile(settings: Record<string, unknown> | null, upload: StoredUpload | null): Record<string, unknown> | null {
  if (upload && upload.filename !== "") return { ...settings, localFile: { filename: upload.filename, size: upload.size } };
  if (upload || settings === null || !("localFile" in settings)) return settings;
  const { localFile: _dropped, ...rest } = settings;
  return rest;
}

/** Headers to store: a redacted value keeps the stored one; one with nothing stored is refused. */
function checkedHeaders(stored: unknown, next: Record<string, string> | null): Record<string, string> | null {
  const merged = mergeHeaders(stored, next);
  if (merged.unknown !== null) throw errors.invalidInput(["headers", merged.unknown], "the redacted value stands for a stored value, and this header has none", merged.unknown);
  return merged.headers;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
