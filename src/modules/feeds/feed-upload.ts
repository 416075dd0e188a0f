import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { ArchiveError, ArchiveLimitError, extractArchive, type ArchiveKind, type ExtractBudget } from "../../platform/archives/safe-extract.ts";
import { errors } from "../../platform/errors.ts";
import { StorageLimitError, type Storage } from "../../platform/storage/storage.ts";
import { LocalStorage } from "../../platform/storage/local-storage.ts";
import { ACCEPTED_EXTENSIONS, parseFeedFormat, type FeedFormat } from "./feed-schema.ts";

/** Spec 8: 2 GB raw upload. */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
/**
 * A member is at most what ingestion reads of one file (event files: 256 MiB), and past 1 MiB at
 * most 100 times its compressed size (MISP JSON deflates about 10:1; a bomb 1000:1).
 */
const ARCHIVE_BUDGET: ExtractBudget = { maxEntries: 100_000, maxTotalBytes: 4 * 1024 ** 3, maxEntryBytes: 256 * 1024 ** 2, maxRatio: 100, ratioFloorBytes: 1024 ** 2 };
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
export const UPLOAD_KEY = new RegExp(`^feed-uploads/${UUID}$`);
const EVENT_FILE = new RegExp(`^${UUID}\\.json$`, "i");

export interface StagedUpload {
  path: string;
  filename: string;
  size: number;
}

export interface UploadResult {
  key: string;
  filename: string;
  size: number;
  source_format: FeedFormat;
  /** Archives: the events stored, and the members dropped for an unsafe path. */
  members?: { events: number; hashes: boolean; unsafe_entries: string[] };
}

/** Receives the raw upload into a private temporary file (streamed, never whole in memory), at most MAX_UPLOAD_BYTES. */
export async function stageUpload(tmpDir: string, filename: string, stream: Readable, truncated: () => boolean): Promise<StagedUpload> {
  const staging = new LocalStorage(tmpDir);
  const key = `upload-${crypto.randomUUID()}`;
  const file = path.join(tmpDir, key);
  try {
    const size = await staging.put(key, stream, { maxBytes: MAX_UPLOAD_BYTES });
    if (truncated()) throw new StorageLimitError(MAX_UPLOAD_BYTES);
    return { path: file, filename: filename.slice(0, 1024), size };
  } catch (err) {
    await fs.promises.rm(file, { force: true });
    if (err instanceof StorageLimitError) throw errors.payloadTooLarge(`Uploaded file exceeds maximum allowed size (${MAX_UPLOAD_BYTES} bytes)`);
    throw err;
  }
}

/**
 * Checks a staged upload against its format (spec 4.6 rule 3) and stores it under
 * `feed-uploads/<uuid>`: text files as they are, archives member by member (rule 4). `record` is
 * called with the key once the checks pass and before anything is stored; when storing fails,
 * nothing stays under the key.
 */
export async function storeUpload(storage: Storage, staged: StagedUpload, format: string, record: (key: string, format: FeedFormat) => Promise<void>): Promise<UploadResult> {
  const fmt = parseFeedFormat(format);
  if (fmt === null) throw errors.invalidInput(["sourceFormat"], `Unsupported source_format for upload: ${format.slice(0, 50)}`, format.slice(0, 50));
  const lower = staged.filename.toLowerCase();
  const extension = ACCEPTED_EXTENSIONS[fmt].find((e) => lower.endsWith(e));
  if (!extension) throw errors.badRequest(`A ${fmt} upload must be a ${ACCEPTED_EXTENSIONS[fmt].join(", ")} file`);
  if (staged.size === 0) throw errors.badRequest("Uploaded file is empty");
  const archive = fmt === "sharing";
  if (!archive && (await looksBinary(staged.path))) throw errors.badRequest(`A ${fmt} upload must be text; this file is binary`);
  const key = `feed-uploads/${crypto.randomUUID()}`;
  const base = { key, filename: staged.filename, size: staged.size, source_format: fmt };
  await record(key, fmt);
  try {
    if (!archive) {
      await storage.put(key, fs.createReadStream(staged.path));
      return base;
    }
    return { ...base, members: await storeArchive(storage, key, staged.path, extension === ".zip" ? "zip" : "tar.gz") };
  } catch (err) {
    await storage.deleteTree(key);
    if (err instanceof ArchiveLimitError) throw errors.payloadTooLarge(err.message);
    if (err instanceof ArchiveError) throw errors.badRequest(err.message);
    throw err;
  }
}

async function storeArchive(storage: Storage, key: string, file: string, kind: ArchiveKind): Promise<NonNullable<UploadResult["members"]>> {
  let events = 0;
  let hashes = false;
  let manifest = false;
  const outcome = await extractArchive(file, kind, ARCHIVE_BUDGET, async (name, stream) => {
    // Root members only: manifest.json, hashes.csv and <event uuid>.json; the rest is read and dropped.
    const keep = name === "manifest.json" || name === "hashes.csv" || EVENT_FILE.test(name) ? name.toLowerCase() : null;
    if (!keep) {
      stream.resume();
      await new Promise<void>((resolve, reject) => stream.once("end", resolve).once("error", reject));
      return;
    }
    await storage.put(`${key}/${keep}`, stream);
    if (keep === "manifest.json") manifest = true;
    else if (keep === "hashes.csv") hashes = true;
    else events++;
  });
  if (!manifest) throw new ArchiveError("MISP feed archive must contain manifest.json at its root");
  return { events, hashes, unsafe_entries: outcome.unsafe };
}

/** NUL bytes in the first 8 KiB: not a text file (an executable renamed .csv, say). */
async function looksBinary(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, "r");
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
