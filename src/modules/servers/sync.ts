import type { Principal } from "../../auth/principal.ts";
import { AppError } from "../../platform/errors.ts";
import { parseMispEvent, type EventsService } from "../events/index.ts";
import { RemoteError, type MispClient } from "./misp-client.ts";
import type { PullRules, PushRules } from "./servers.contracts.ts";
import type { ServerRow, ServersRepository } from "./servers.repository.ts";
import { forRemote, indexEntry, pulledEvent, pullTakes, pushTakes, type IndexEntry } from "./sync-rules.ts";

/**
 * Pull and push with one remote MISP. A pull reads the remote's events/index from the cursor on, takes what the rules
 * take and is newer than the cursor, oldest change first, fetches each event (events/view) and
 * writes it through the events import, distributions downgraded as MISP does unless the server is
 * internal (sync-rules.ts pulledEvent; the MISP JSON import's path: indexing, correlation and
 * notifications follow as for any import; sharing groups matched or created as it does, the
 * puller's organisation added to those that do not list it, as MISP's pull), then moves
 * the cursor to that event's timestamp. A network failure stops the run with the cursor at the last
 * committed event, so the next attempt resumes there; an event the import refuses is counted and
 * skipped. A push sends the organisation's events the pusher reads, as forRemote allows, to the
 * remote's events/add, or events/edit when the remote holds an older version.
 */
export interface SyncContext {
  events: EventsService;
  repo: ServersRepository;
  client: MispClient;
  server: ServerRow;
  /** Pull: the puller acting for the server's organisation; push: the pusher. */
  principal: Principal;
  progress(counts: Record<string, unknown>): Promise<void>;
}

const INDEX_PAGE = 1000;
/** A remote answering more than this many index pages is not read further (a million events). */
const MAX_INDEX_PAGES = 1000;
const MAX_REJECTIONS_KEPT = 100;

export interface PullCounts {
  listed: number;
  taken: number;
  events_created: number;
  events_updated: number;
  events_unchanged: number;
  attributes_created: number;
  attributes_updated: number;
  rejected: number;
  rejections: { uuid: string; reason: string }[];
  cursor: number;
}

export type PreviewEntry = Omit<IndexEntry, "tags"> & { tags: string[]; stored_timestamp: number | null };

/**
 * The remote's index entries changed at or after the cursor, as PyMISP's search_index pages them
 * (MISP's index takes `timestamp`: the events whose timestamp is at least that). Cursor 0 asks for all.
 */
async function remoteIndex(client: MispClient, rules: PullRules, cursor: number): Promise<(IndexEntry & { raw: Record<string, unknown> })[]> {
  const out: (IndexEntry & { raw: Record<string, unknown> })[] = [];
  const filters = { ...((rules.publishedOnly ?? true) ? { published: true } : {}), ...(cursor > 0 ? { timestamp: cursor } : {}) };
  for (let page = 1; page <= MAX_INDEX_PAGES; page++) {
    const body = await client.post("events/index", { limit: INDEX_PAGE, page, ...filters });
    if (!Array.isArray(body)) throw new RemoteError("POST events/index: the answer is not a list of events");
    for (const raw of body) {
      const e = indexEntry(raw);
      if (e) out.push(e);
    }
    if (body.length < INDEX_PAGE) break;
  }
  return out;
}

/** What a pull would take now, without writing: the rules applied, from the cursor on. */
export async function previewPull(x: Pick<SyncContext, "client" | "server" | "repo">, rules: PullRules, limit: number): Promise<{ total: number; events: PreviewEntry[] }> {
  const taken = await pullList(x, rules);
  const local = await x.repo.localTimestamps(taken.slice(0, limit).map((e) => e.uuid));
  return {
    total: taken.length,
    events: taken.slice(0, limit).map(({ raw: _raw, ...e }) => ({ ...e, stored_timestamp: local.get(e.uuid)?.timestamp ?? null })),
  };
}

async function pullList(x: Pick<SyncContext, "client" | "server">, rules: PullRules) {
  const cursor = Number(x.server.pullCursor);
  const index = await remoteIndex(x.client, rules, cursor);
  // At the cursor itself too: another event of that second may not have been committed yet. The
  // remote filtered by the cursor already; filtering again guards against one that ignores it.
  return index.filter((e) => e.timestamp >= cursor && pullTakes(rules, e)).sort((a, b) => a.timestamp - b.timestamp || a.uuid.localeCompare(b.uuid));
}

export async function pullAll(x: SyncContext, rules: PullRules): Promise<PullCounts> {
  const counts: PullCounts = {
    listed: 0, taken: 0, events_created: 0, events_updated: 0, events_unchanged: 0, attributes_created: 0, attributes_updated: 0, rejected: 0, rejections: [], cursor: Number(x.server.pullCursor),
  };
  const taken = await pullList(x, rules);
  counts.taken = taken.length;
  const local = await x.repo.localTimestamps(taken.map((e) => e.uuid));
  for (const entry of taken) {
    counts.listed++;
    const stored = local.get(entry.uuid);
    if (!stored || stored.timestamp < entry.timestamp) await pullEvent(x, entry.uuid, counts, entry.timestamp);
    else counts.events_unchanged++;
    await x.repo.advanceCursor(x.server.id, entry.timestamp);
    counts.cursor = Math.max(counts.cursor, entry.timestamp);
    if (counts.listed % 10 === 0 || counts.listed === taken.length) await x.progress({ ...counts });
  }
  return counts;
}

export function emptyPullCounts(cursor: number): PullCounts {
  return { listed: 0, taken: 0, events_created: 0, events_updated: 0, events_unchanged: 0, attributes_created: 0, attributes_updated: 0, rejected: 0, rejections: [], cursor };
}

/**
 * Fetches one event and writes it. RemoteErrors other than 404 propagate (the run stops, resumable);
 * what the import refuses is counted in `counts.rejections`. Returns false when the remote does not have it.
 */
export async function pullEvent(x: SyncContext, uuid: string, counts: PullCounts, expected?: number): Promise<boolean> {
  // Soft-deleted elements too (MISP's pull asks deleted [0, 1]), so that deletions reach the copy here.
  const doc = await x.client.find(`events/view/${uuid}/deleted:1`);
  if (doc === null) {
    if (expected !== undefined) reject(counts, uuid, "the remote listed it but does not show it");
    return false;
  }
  try {
    const { draft, skipped } = parseMispEvent(pulledEvent(doc, x.server.internal), { skipInvalidAttributes: true });
    if (draft.uuid !== uuid) throw new Error(`the remote answered event ${draft.uuid}`);
    // pulled: a sharing group of the event that does not list the puller's organisation gets it, as MISP's captureSG with a server.
    const r = await x.events.write(x.principal, draft, { pulled: true });
    if (r.created) counts.events_created++;
    else if (r.changed) counts.events_updated++;
    else counts.events_unchanged++;
    counts.attributes_created += r.attributes.created;
    counts.attributes_updated += r.attributes.updated;
    if (skipped.length) reject(counts, uuid, `${skipped.length} invalid attribute(s) left out, first: ${skipped[0].loc.join(".")}: ${skipped[0].msg}`);
  } catch (err) {
    if (err instanceof RemoteError) throw err;
    reject(counts, uuid, err instanceof AppError ? err.message : (err as Error).message);
  }
  return true;
}

function reject(counts: { rejected: number; rejections: { uuid: string; reason: string }[] }, uuid: string, reason: string): void {
  counts.rejected++;
  if (counts.rejections.length < MAX_REJECTIONS_KEPT) counts.rejections.push({ uuid, reason: reason.replace(/[^\x20-\x7e]/g, "?").slice(0, 500) });
}

export interface PushCounts {
  considered: number;
  events_created: number;
  events_updated: number;
  events_unchanged: number;
  /** Left out by the push rules. */
  skipped: number;
  /** Not allowed to the remote organisation (distribution 0, a sharing group it is not in). */
  refused: number;
  rejected: number;
  rejections: { uuid: string; reason: string }[];
}

/** The uuid of the organisation the remote sync user belongs to (what sharing groups are checked against). */
export async function remoteOrganisation(client: MispClient): Promise<string> {
  const me = (await client.get("users/view/me")) as { Organisation?: { uuid?: unknown } } | null;
  const uuid = me?.Organisation?.uuid;
  if (typeof uuid !== "string" || uuid === "") throw new RemoteError("GET users/view/me: the answer names no organisation uuid");
  return uuid;
}

export async function pushAll(x: SyncContext, rules: PushRules): Promise<PushCounts> {
  const counts: PushCounts = { considered: 0, events_created: 0, events_updated: 0, events_unchanged: 0, skipped: 0, refused: 0, rejected: 0, rejections: [] };
  const remoteOrg = await remoteOrganisation(x.client);
  const uuids = await x.repo.pushCandidates(x.server.orgId);
  for (const uuid of uuids) {
    counts.considered++;
    await pushEvent(x, uuid, remoteOrg, rules, counts);
    if (counts.considered % 10 === 0 || counts.considered === uuids.length) await x.progress({ ...counts });
  }
  return counts;
}

/** Sends one event as the rules and its distribution allow. Remote 4xx answers are counted; anything else stops. */
export async function pushEvent(x: SyncContext, uuid: string, remoteOrg: string, rules: PushRules, counts: PushCounts): Promise<void> {
  const { Event: event } = await x.events.exportMisp(x.principal, uuid);
  if (!pushTakes(rules, event)) {
    counts.skipped++;
    return;
  }
  const out = forRemote(event, remoteOrg, rules, x.server.internal);
  if (!out) {
    counts.refused++;
    return;
  }
  try {
    const remote = (await x.client.find(`events/view/${uuid}/metadata:1`)) as { Event?: { timestamp?: unknown } } | null;
    if (remote && Number(remote.Event?.timestamp) >= Number(event.timestamp)) counts.events_unchanged++;
    else if (remote) {
      await x.client.post(`events/edit/${uuid}`, { Event: out });
      counts.events_updated++;
    } else {
      await x.client.post("events/add", { Event: out });
      counts.events_created++;
    }
  } catch (err) {
    if (!(err instanceof RemoteError) || err.status === null || err.status >= 500 || err.status === 401) throw err;
    reject(counts, uuid, err.message);
  }
}

export function emptyPushCounts(): PushCounts {
  return { considered: 0, events_created: 0, events_updated: 0, events_unchanged: 0, skipped: 0, refused: 0, rejected: 0, rejections: [] };
}
