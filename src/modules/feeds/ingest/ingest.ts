import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Principal } from "../../../auth/principal.ts";
import type { AppContext } from "../../../app-context.ts";
import { AppError } from "../../../platform/errors.ts";
import { pipelined } from "../../../platform/pipeline.ts";
import { StorageNotFoundError } from "../../../platform/storage/storage.ts";
import type { EventDraft, EventsService } from "../../events/index.ts";
import { parseMispEvent } from "../../events/index.ts";
import type { WarninglistMatcher } from "../../warninglists/index.ts";
import type { Feed } from "../../../generated/prisma/client.ts";
import { feedSettingsSchema, type FeedFormat } from "../feed-schema.ts";
import { readRuntimeSetting } from "../../settings/index.ts";
import { findUpload } from "../feed-upload-store.ts";
import { feedUuids, type FeedUuids } from "./derived-uuids.ts";
import { eventOrg, isSoftDeleted, setFeedEvent, uuidsElsewhere, uuidsInEvent } from "./feed-event-store.ts";
import { download, DownloadError } from "./http-source.ts";
import { csvRows, freetextRows, jsonRows, readCapped, type Row } from "./indicators.ts";
import { printable } from "./text.ts";

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const MAX_EVENT_BYTES = 256 * 1024 * 1024;
/** Attributes per write (one transaction each) for csv, json and freetext feeds. */
const WRITE_CHUNK = 5000;
const MAX_REJECTIONS_KEPT = 100;
/** A value whose derived uuid another event holds takes the next of these alternates. */
const MAX_ALTERNATES = 8;

export interface IngestCounts {
  events_created: number;
  events_updated: number;
  events_unchanged: number;
  attributes_created: number;
  attributes_updated: number;
  attributes_unchanged: number;
  rows: number;
  rejected: number;
  /** Values left out because they are on an enabled warninglist (feeds with skip_warninglisted). */
  warninglisted: number;
  /** A network feed whose document had not changed since the last fetch (ETag / Last-Modified). */
  not_modified: boolean;
  /** The first rejections, with where and why. */
  rejections: { where: string; reason: string }[];
  /** csv, json and freetext feeds: the event the values went to. */
  event_uuid?: string;
  /** Things the run did that the feed's owners should know (a new feed event, say). */
  notes?: string[];
}

/** Where a run's time went, in milliseconds (logged at debug; bench/feeds.ts reads it for its per-stage breakdown). */
export interface IngestTimings {
  /** Reading the event files from storage or the network. */
  read_ms: number;
  /** JSON.parse, validation and normalisation, warninglist filtering. */
  parse_ms: number;
  /** Writing the events (one transaction each). */
  store_ms: number;
}

/** A problem with the feed's content as a whole: the run fails with it. */
export class FeedContentError extends Error {}

export interface IngestContext {
  app: AppContext;
  /** Writes the feed's events as an import would. */
  events: EventsService;
  principal: Principal;
  progress(counts: IngestCounts): Promise<void>;
}

/** Ingests a feed: MISP events by manifest, or the indicators of a csv, json or freetext file into the feed's event. */
export async function ingestFeed(x: IngestContext, feed: Feed): Promise<{ counts: IngestCounts; validators: Validators | null; timings: IngestTimings }> {
  const counts: IngestCounts = {
    events_created: 0, events_updated: 0, events_unchanged: 0, attributes_created: 0, attributes_updated: 0, attributes_unchanged: 0, rows: 0, rejected: 0, warninglisted: 0, not_modified: false, rejections: [],
  };
  const timings: IngestTimings = { read_ms: 0, parse_ms: 0, store_ms: 0 };
  const source = feed.inputSource === "local" ? localSource(x, feed) : await networkSource(x, feed);
  try {
    // Where and why may quote the content, which must not break the stored result.
    const reject = (where: string, reason: string) => {
      counts.rejected++;
      if (counts.rejections.length < MAX_REJECTIONS_KEPT) counts.rejections.push({ where: printable(where.slice(0, 200)), reason: printable(reason.slice(0, 500)) });
    };
    const main = await source.main();
    if (main === null) {
      counts.not_modified = true;
      return { counts, validators: null, timings };
    }
    if (feed.sourceFormat === "sharing") await ingestMisp(x, feed, source, main, x.events, counts, timings, reject);
    else await ingestIndicators(x, feed, main, x.events, counts, reject);
    return { counts, validators: source.validators(), timings };
  } finally {
    await source.close();
  }
}

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** The fields of a feed that say where its files are (and whose uploads it may read). */
export type FeedLocation = Pick<Feed, "url" | "sourceFormat" | "inputSource" | "headers" | "etag" | "lastModified"> & { orgId: number | null };

/** Opens a feed's document (for previews); `close` removes a downloaded copy. */
export async function openFeedDocument(x: Pick<IngestContext, "app">, feed: FeedLocation): Promise<{ stream: Readable; close(): Promise<void> }> {
  const source = feed.inputSource === "local" ? localSource(x, feed) : await networkSource(x, { ...feed, etag: null, lastModified: null });
  const stream = (await source.main())!;
  return { stream, close: () => source.close() };
}

/** Where a feed's files come from: storage (uploads) or the network. */
interface FeedSource {
  /** The feed's document (the file, or a MISP feed's manifest); null when unchanged since the last fetch. */
  main(): Promise<Readable | null>;
  event(uuid: string): Promise<Readable>;
  validators(): Validators | null;
  close(): Promise<void>;
}

function localSource(x: Pick<IngestContext, "app">, feed: FeedLocation): FeedSource {
  const get = async (key: string, what: string) => {
    try {
      return await x.app.storage.get(key);
    } catch (err) {
      if (err instanceof StorageNotFoundError) throw new FeedContentError(`${what} is missing from storage (${key})`);
      throw err;
    }
  };
  const misp = feed.sourceFormat === "sharing";
  return {
    // An upload serves its own organisation's feeds only (one set up before uploads were recorded may point elsewhere).
    main: async () => {
      const upload = await findUpload(x.app.db.pool, feed.url);
      if (!upload || upload.orgId === null || upload.orgId !== feed.orgId) throw new FeedContentError(`the upload ${feed.url} is not one of this feed's organisation`);
      return get(misp ? `${feed.url}/manifest.json` : feed.url, misp ? "manifest.json" : "the uploaded file");
    },
    event: (uuid) => get(`${feed.url}/${uuid}.json`, `${uuid}.json`),
    validators: () => null,
    close: async () => undefined,
  };
}

async function networkSource(x: Pick<IngestContext, "app">, feed: FeedLocation): Promise<FeedSource> {
  const settings = await readRuntimeSetting(x.app.db.pool, "feeds");
  const files: string[] = [];
  let validators: Validators | null = null;
  const base = feed.url.replace(/\/+$/, "");
  const opts = {
    tmpDir: path.join(x.app.config.DATA_DIR, "tmp"),
    headers: (feed.headers ?? {}) as Record<string, string>,
    timeoutMs: settings.fetch_timeout_seconds * 1000,
    maxBytes: settings.max_download_bytes,
    allowedPrivateNetworks: settings.allowed_private_networks,
  };
  const get = async (url: string, conditional: boolean): Promise<Readable | null> => {
    try {
      const d = await download(url, conditional ? { ...opts, etag: feed.etag, lastModified: feed.lastModified } : opts);
      if (d.notModified) return null;
      files.push(d.file);
      if (conditional) validators = { etag: d.etag, lastModified: d.lastModified };
      return fs.createReadStream(d.file);
    } catch (err) {
      if (err instanceof DownloadError) throw new FeedContentError(err.message);
      throw err;
    }
  };
  return {
    main: () => get(feed.sourceFormat === "sharing" ? `${base}/manifest.json` : feed.url, true),
    event: async (uuid) => (await get(`${base}/${uuid}.json`, false))!,
    validators: () => validators,
    close: async () => {
      for (const f of files) await fs.promises.rm(f, { force: true });
    },
  };
}

async function ingestMisp(
  x: IngestContext,
  feed: Feed,
  source: FeedSource,
  manifestStream: Readable,
  events: EventsService,
  counts: IngestCounts,
  timings: IngestTimings,
  reject: (w: string, r: string) => void,
): Promise<void> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readCapped(manifestStream, MAX_MANIFEST_BYTES, "manifest.json"));
  } catch (err) {
    throw new FeedContentError(`manifest.json is not valid: ${(err as Error).message}`);
  }
  if (manifest === null || typeof manifest !== "object" || Array.isArray(manifest)) throw new FeedContentError("manifest.json must be an object keyed by event uuid");
  // The next event is read and parsed while the current one is written: the write waits on
  // PostgreSQL, the parse on this process's CPU. Writes stay one at a time, in manifest order.
  const entries = Object.entries(manifest as Record<string, unknown>);
  await pipelined(entries, (entry) => prepareEvent(x, feed, source, entry, timings), async (prepared) => {
    counts.rows++;
    const { where } = prepared;
    if ("rejected" in prepared) reject(where, prepared.rejected);
    else if ("unchanged" in prepared) counts.events_unchanged++;
    else {
      for (const s of prepared.skipped) reject(`${where} ${s.loc.join(".")}`, s.msg);
      try {
        let t = performance.now();
        await dropWarninglisted(x, feed, prepared.draft, counts);
        timings.parse_ms += performance.now() - t;
        t = performance.now();
        tally(counts, await events.write(x.principal, prepared.draft));
        timings.store_ms += performance.now() - t;
      } catch (err) {
        reject(where, err instanceof AppError ? err.message : (err as Error).message);
      }
    }
    if (counts.rows % 50 === 0) await x.progress(counts);
  });
}

type PreparedEvent = { where: string } & ({ rejected: string } | { unchanged: true } | ReturnType<typeof parseMispEvent>);

/**
 * One manifest entry up to its write: skipped when the feed's organisation holds it at least as new,
 * else its file read and parsed. A problem with the file is the entry's rejection; a failed database
 * read fails the run, as it did before the reads went ahead of the writes.
 */
async function prepareEvent(x: IngestContext, feed: Feed, source: FeedSource, [uuid, entry]: [string, unknown], timings: IngestTimings): Promise<PreparedEvent> {
  const where = `event ${uuid.slice(0, 64)}`;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return { where, rejected: "manifest key is not a uuid" };
  const ts = Number((entry as { timestamp?: unknown } | null)?.timestamp);
  // Only the feed's organisation's copy counts: another one's event with this uuid is refused when written, never taken as up to date.
  const local = await x.app.db.pool.query<{ timestamp: string }>("SELECT timestamp FROM events WHERE uuid = $1 AND org_id = $2", [uuid.toLowerCase(), feed.orgId]);
  if (local.rows[0] && Number.isFinite(ts) && Number(local.rows[0].timestamp) >= ts) return { where, unchanged: true };
  try {
    let t = performance.now();
    const text = await readCapped(await source.event(uuid.toLowerCase()), MAX_EVENT_BYTES, "an event file");
    timings.read_ms += performance.now() - t;
    t = performance.now();
    const { draft, skipped } = parseMispEvent(JSON.parse(text), { skipInvalidAttributes: true });
    if (draft.uuid !== uuid.toLowerCase()) throw new Error(`the file holds event ${draft.uuid}`);
    for (const name of feed.tags) if (!draft.tags.some((t) => t.name === name)) draft.tags.push({ name, colour: null, exportable: true, local: false });
    timings.parse_ms += performance.now() - t;
    return { where, draft, skipped };
  } catch (err) {
    return { where, rejected: err instanceof AppError ? err.message : (err as Error).message };
  }
}

/**
 * A feed with skip_warninglisted leaves out the values on an enabled warninglist (an object keeps
 * its other attributes); any other feed stores them with their hits, which keep them out of
 * correlation and show in search.
 */
async function dropWarninglisted(x: IngestContext, feed: Feed, draft: EventDraft, counts: IngestCounts): Promise<void> {
  if (!feed.skipWarninglisted) return;
  const matcher: WarninglistMatcher = await x.app.warninglists.matcher();
  const keep = (a: EventDraft["attributes"][number]) => {
    if (matcher.match(a.type, a.value1, a.value2).length === 0) return true;
    counts.warninglisted++;
    return false;
  };
  draft.attributes = draft.attributes.filter(keep);
  for (const o of draft.objects) o.attributes = o.attributes.filter(keep);
}

function tally(counts: IngestCounts, r: { created: boolean; changed: boolean; attributes: { created: number; updated: number; unchanged: number } }): void {
  if (r.created) counts.events_created++;
  else if (r.changed) counts.events_updated++;
  else counts.events_unchanged++;
  counts.attributes_created += r.attributes.created;
  counts.attributes_updated += r.attributes.updated;
  counts.attributes_unchanged += r.attributes.unchanged;
}

/**
 * csv, json and freetext: the indicators go into the feed's own event (`<FMT> Feed Import: <name>`),
 * each with a uuid derived from the feed and its type and value, so a value fetched again (or
 * present in a replaced file) is recognised and not written twice. Only the feed's own event is
 * searched for them: rows of other events never make a value count as present, and a derived uuid
 * another event holds makes the value take the next alternate.
 */
async function ingestIndicators(x: IngestContext, feed: Feed, stream: Readable, events: EventsService, counts: IngestCounts, reject: (w: string, r: string) => void): Promise<void> {
  const settings = feedSettingsSchema.parse(feed.settings ?? {});
  const rows = { csv: csvRows, json: jsonRows, freetext: freetextRows }[feed.sourceFormat as Exclude<FeedFormat, "sharing">](stream, settings);
  const pool = x.app.db.pool;
  const uuids = await feedUuids(pool);
  const eventUuid = await feedEvent(x, feed, uuids, counts);
  const seen = new Set<string>();
  let pending: Pending[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    const fresh = await freshValues(x, eventUuid, batch, uuids, counts, reject);
    if (fresh.length === 0) return;
    const last = await pool.query<{ timestamp: string }>("SELECT timestamp FROM events WHERE uuid = $1", [eventUuid]);
    const now = Math.max(Math.floor(Date.now() / 1000), Number(last.rows[0]?.timestamp ?? 0) + 1);
    const doc = {
      Event: {
        uuid: eventUuid,
        info: `${feed.sourceFormat.toUpperCase()} Feed Import: ${feed.name}`.slice(0, 1000),
        date: new Date().toISOString().slice(0, 10),
        timestamp: String(now),
        distribution: String(feed.distribution),
        analysis: "2",
        threat_level_id: "4",
        published: feed.publish,
        Tag: feed.tags.map((name) => ({ name })),
        Attribute: fresh.map((f) => ({ uuid: f.uuid, type: f.type, value: f.value, timestamp: String(now), comment: "", to_ids: !feed.overrideIds })),
      },
    };
    const { draft, skipped } = parseMispEvent(doc, { skipInvalidAttributes: true });
    for (const s of skipped) {
      const index = Number(s.loc[s.loc.indexOf("Attribute") + 1]);
      reject(fresh[index]?.where ?? s.loc.join("."), s.msg);
    }
    await dropWarninglisted(x, feed, draft, counts);
    if (draft.attributes.length === 0) return;
    tally(counts, await events.write(x.principal, draft));
    await x.progress(counts);
  };
  for await (const row of rows as AsyncIterable<Row>) {
    counts.rows++;
    if ("rejected" in row) {
      reject(row.where, row.rejected);
      continue;
    }
    const name = `feed-attribute:${feed.id}:${row.type}:${row.value}`;
    const uuid = uuids.derive(name);
    if (seen.has(uuid)) {
      counts.attributes_unchanged++;
      continue;
    }
    seen.add(uuid);
    pending.push({ name, uuid, legacy: uuids.legacy(name), type: row.type, value: row.value, where: row.where });
    if (pending.length >= WRITE_CHUNK) await flush();
  }
  await flush();
}

interface Pending {
  name: string;
  uuid: string;
  legacy: string;
  type: string;
  value: string;
  where: string;
}

/**
 * The feed's event: the one stored on the feed (set at its first ingestion), else the event of a
 * feed that ingested before uuids were keyed (the unkeyed uuid, when the feed's organisation owns
 * it), else a derived one. An event of another organisation is never written to: the feed then
 * starts a new event of its own (noted in the result). The choice is stored on the feed.
 */
async function feedEvent(x: IngestContext, feed: Feed, uuids: FeedUuids, counts: IngestCounts): Promise<string> {
  const pool = x.app.db.pool;
  let uuid = feed.eventUuid;
  if (!uuid) {
    const legacy = uuids.legacy(`feed-event:${feed.id}`);
    uuid = (await eventOrg(pool, legacy)) === feed.orgId ? legacy : uuids.derive(`feed-event:${feed.id}`);
  }
  const owner = await eventOrg(pool, uuid);
  if (owner !== null && owner !== feed.orgId) {
    counts.notes = [...(counts.notes ?? []), `event ${uuid} belongs to another organisation: the values go to a new event of the feed's own`];
    uuid = crypto.randomUUID();
  } else if (owner !== null && (await isSoftDeleted(pool, uuid))) {
    // Deleted on purpose: the feed starts a new event (as the peer recreates a deleted one) rather than fill a hidden one.
    counts.notes = [...(counts.notes ?? []), `event ${uuid} was deleted: the values go to a new event`];
    uuid = crypto.randomUUID();
  }
  if (uuid !== feed.eventUuid) await setFeedEvent(pool, feed.id, uuid);
  counts.event_uuid = uuid;
  return uuid;
}

/**
 * The values of a batch that the feed's event does not hold yet (by their derived uuid, or the
 * unkeyed one of values ingested before uuids were keyed), each with a uuid no other event holds.
 */
async function freshValues(x: IngestContext, eventUuid: string, batch: Pending[], uuids: FeedUuids, counts: IngestCounts, reject: (w: string, r: string) => void): Promise<Pending[]> {
  const pool = x.app.db.pool;
  const held = await uuidsInEvent(pool, eventUuid, batch.flatMap((b) => [b.uuid, b.legacy]));
  let candidates = batch.filter((b) => !held.has(b.uuid) && !held.has(b.legacy));
  counts.attributes_unchanged += batch.length - candidates.length;
  const fresh: Pending[] = [];
  for (let alternate = 1; candidates.length > 0; alternate++) {
    const taken = await uuidsElsewhere(pool, eventUuid, candidates.map((c) => c.uuid));
    fresh.push(...candidates.filter((c) => !taken.has(c.uuid)));
    candidates = candidates.filter((c) => taken.has(c.uuid)).map((c) => ({ ...c, uuid: uuids.derive(`${c.name}#${alternate}`) }));
    if (candidates.length === 0) break;
    if (alternate > MAX_ALTERNATES) {
      for (const c of candidates) reject(c.where, "every uuid this value could take belongs to another event");
      break;
    }
    const heldAlternates = await uuidsInEvent(pool, eventUuid, candidates.map((c) => c.uuid));
    counts.attributes_unchanged += candidates.filter((c) => heldAlternates.has(c.uuid)).length;
    candidates = candidates.filter((c) => !heldAlternates.has(c.uuid));
  }
  return fresh;
}
