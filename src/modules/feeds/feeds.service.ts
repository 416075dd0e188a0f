import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type { AppContext } from "../../app-context.ts";
import { authorize, isAdmin, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, fromZodError } from "../../platform/errors.ts";
import type { SkipLimit } from "../../platform/paging.ts";
import type { Feed } from "../../generated/prisma/client.ts";
import type { AuditService } from "../audit/audit.service.ts";
import { queueRun } from "../tasks/task-queue.ts";
import type { TaskRunRow } from "../tasks/task-store.ts";
import { fetchFeedTask } from "./fetch-feed-task.ts";
import { feedSettingsSchema, type FeedFormat } from "./feed-schema.ts";
import { csvRows, freetextRows, jsonRows, readCapped } from "./ingest/indicators.ts";
import { FeedContentError, openFeedDocument } from "./ingest/ingest.ts";

export type PreviewRow = { where: string; value: string; type: string } | { where: string; error: string };
import { stageUpload, storeUpload, UPLOAD_KEY, type StagedUpload, type UploadResult } from "./feed-upload.ts";

export interface FeedInput {
  name: string;
  provider: string;
  url: string;
  source_format: FeedFormat;
  input_source: "network" | "local";
  enabled?: boolean;
  distribution?: number;
  fixed_event?: boolean;
  event_uuid?: string | null;
  publish?: boolean;
  override_ids?: boolean;
  tags?: string[];
  rules?: Record<string, unknown> | null;
  settings?: Record<string, unknown> | null;
  headers?: Record<string, string> | null;
}

/**
 * Feeds are instance-wide (as in MISP): every holder of feeds:read sees them; changing, deleting
 * and fetching one needs the scope and the feed's organisation (administrators: any).
 */
export class FeedsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  async list(p: Principal | null, page: SkipLimit): Promise<Feed[]> {
    authorize(p, "feeds:read");
    return this.ctx.db.prisma.feed.findMany({ orderBy: { id: "asc" }, skip: page.skip, take: page.limit });
  }

  async get(p: Principal | null, id: number): Promise<Feed> {
    authorize(p, "feeds:read");
    const feed = await this.ctx.db.prisma.feed.findUnique({ where: { id } });
    if (!feed) throw errors.notFound("Feed");
    return feed;
  }

  /** An uploaded feed is ingested once, at once, as its creator (spec 3.3); nothing recurring is scheduled. */
  async create(p: Principal | null, input: FeedInput): Promise<{ feed: Feed; ingestion: TaskRunRow | null }> {
    authorize(p, "feeds:create");
    requireUser(p);
    if (p.orgId === null) throw errors.forbidden("Only users of an organisation can create feeds");
    const settings = await this.checkInput(input.input_source, input.url, input.source_format, input.settings);
    if (input.input_source === "local") authorize(p, ...fetchFeedTask.requiredScopes);
    const result = await withTransaction(this.ctx.db.pool, async (client) => {
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO feeds (name, provider, url, source_format, input_source, enabled, distribution, fixed_event, event_uuid, publish, override_ids, tags, rules, settings, headers, org_id, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id`,
        [
          input.name, input.provider, input.url, input.source_format, input.input_source, input.enabled ?? false, input.distribution ?? 0, input.fixed_event ?? false,
          input.event_uuid ?? null, input.publish ?? false, input.override_ids ?? false, input.tags ?? [], json(input.rules), json(settings), json(input.headers), p.orgId, p.userId,
        ],
      );
      const ingestion = input.input_source === "local" ? await this.queueFetch(client, p, rows[0].id) : null;
      return { id: rows[0].id, ingestion };
    });
    await this.audit.record(p, { action: "feed.created", resourceType: "feed", resourceId: result.id, metadata: { name: input.name, input_source: input.input_source } });
    return { feed: await this.get(p, result.id), ingestion: result.ingestion };
  }

  /** Replacing an uploaded file is a PATCH of `url` (and settings.localFile); the next fetch reads it. */
  async update(p: Principal | null, id: number, patch: Partial<FeedInput>): Promise<Feed> {
    authorize(p, "feeds:update");
    const current = this.writable(p, await this.get(p, id));
    const inputSource = patch.input_source ?? (current.inputSource as FeedInput["input_source"]);
    const settings = await this.checkInput(inputSource, patch.url ?? current.url, patch.source_format ?? (current.sourceFormat as FeedFormat), patch.settings === undefined ? current.settings : patch.settings);
    const next = {
      name: patch.name ?? current.name,
      provider: patch.provider ?? current.provider,
      url: patch.url ?? current.url,
      sourceFormat: patch.source_format ?? current.sourceFormat,
      inputSource,
      enabled: patch.enabled ?? current.enabled,
      distribution: patch.distribution ?? current.distribution,
      fixedEvent: patch.fixed_event ?? current.fixedEvent,
      eventUuid: patch.event_uuid === undefined ? current.eventUuid : patch.event_uuid,
      publish: patch.publish ?? current.publish,
      overrideIds: patch.override_ids ?? current.overrideIds,
      tags: patch.tags ?? current.tags,
      rules: patch.rules === undefined ? current.rules : patch.rules,
      headers: patch.headers === undefined ? current.headers : patch.headers,
    };
    await this.ctx.db.pool.query(
      `UPDATE feeds SET name = $2, provider = $3, url = $4, source_format = $5, input_source = $6, enabled = $7, distribution = $8, fixed_event = $9,
              event_uuid = $10, publish = $11, override_ids = $12, tags = $13, rules = $14, settings = $15, headers = $16, updated_at = now() WHERE id = $1`,
      [
        id, next.name, next.provider, next.url, next.sourceFormat, next.inputSource, next.enabled, next.distribution, next.fixedEvent,
        next.eventUuid, next.publish, next.overrideIds, next.tags, json(next.rules), json(settings), json(next.headers),
      ],
    );
    const feed = await this.get(p, id);
    await this.audit.record(p, { action: "feed.updated", resourceType: "feed", resourceId: id, metadata: { fields: Object.keys(patch) } });
    return feed;
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "feeds:delete");
    this.writable(p, await this.get(p, id));
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
    this.writable(p, await this.get(p, id));
    authorize(p, ...fetchFeedTask.requiredScopes);
    return withTransaction(this.ctx.db.pool, (client) => this.queueFetch(client, p, id));
  }

  /**
   * The first `limit` rows of a csv, json or freetext source as ingestion would read them (value,
   * detected or configured type, or why it would be rejected), without writing anything.
   */
  async preview(p: Principal | null, format: Exclude<FeedFormat, "misp">, source: { input_source: "network" | "local"; url: string; settings?: Record<string, unknown> | null; headers?: Record<string, string> | null }, limit: number): Promise<PreviewRow[]> {
    authorize(p, "feeds:preview");
    const settings = (await this.checkInput(source.input_source, source.url, format, source.settings)) ?? {};
    const doc = await openFeedDocument({ app: this.ctx }, { url: source.url, sourceFormat: format, inputSource: source.input_source, headers: source.headers ?? null, etag: null, lastModified: null }).catch((err: unknown) => {
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
    const feed = await this.get(p, id);
    if (feed.sourceFormat !== "misp") throw errors.badRequest("Feed is not a MISP feed");
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
    return stageUpload(path.join(this.ctx.config.DATA_DIR, "tmp"), filename, stream, truncated);
  }

  async upload(p: Principal | null, staged: StagedUpload, sourceFormat: string): Promise<UploadResult> {
    authorize(p, "feeds:create");
    const result = await storeUpload(this.ctx.storage, staged, sourceFormat);
    await this.audit.record(p, { action: "feed.uploaded", resourceType: "feed_upload", metadata: { key: result.key, filename: result.filename, size: result.size, source_format: result.source_format } });
    return result;
  }

  async discardStaged(staged: StagedUpload | null): Promise<void> {
    if (staged) await fs.promises.rm(staged.path, { force: true });
  }

  private queueFetch(client: Pick<import("pg").PoolClient, "query">, p: Principal & { userId: number }, feedId: number): Promise<TaskRunRow> {
    return queueRun(
      client,
      this.ctx.jobs,
      { scheduledTaskId: null, task: fetchFeedTask.name, args: [], kwargs: { feed_id: feedId }, trigger: "manual", runAsUserId: p.userId, grantScopes: scopesOf(p) },
      fetchFeedTask,
    );
  }

  private writable(p: Principal, feed: Feed): Feed {
    if (!isAdmin(p) && feed.orgId !== p.orgId) throw errors.forbidden("The feed belongs to another organisation");
    return feed;
  }

  /** A local feed's url must be an existing upload of the right shape; settings are checked. */
  private async checkInput(inputSource: string, url: string, format: FeedFormat, settings: unknown): Promise<Record<string, unknown> | null> {
    if (inputSource === "local") {
      if (!UPLOAD_KEY.test(url)) throw errors.invalidField(["body", "url"], "a local feed's url must be the key returned by POST /feeds/upload", url.slice(0, 200));
      const isArchive = (await this.ctx.storage.size(`${url}/manifest.json`)) !== null;
      const isFile = (await this.ctx.storage.size(url)) !== null;
      if (!isArchive && !isFile) throw errors.invalidField(["body", "url"], "no upload with this key", url);
      if (isArchive !== (format === "misp")) throw errors.invalidField(["body", "source_format"], isArchive ? "this upload is a MISP feed archive" : "this upload is not a MISP feed archive", format);
    } else if (!/^https?:\/\/[^\s]+$/i.test(url)) {
      throw errors.invalidField(["body", "url"], "must be an http(s) URL", url.slice(0, 200));
    }
    if (settings === null || settings === undefined) return null;
    const parsed = feedSettingsSchema.safeParse(settings);
    if (!parsed.success) throw fromZodError(parsed.error, "settings");
    return parsed.data as Record<string, unknown>;
  }
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
