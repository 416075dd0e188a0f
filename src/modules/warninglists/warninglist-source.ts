import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { errors } from "../../platform/errors.ts";
import { isSafeSourceName, isUrlSource, parseSourceJson, SourceReader, type SourceLimits } from "../../platform/source-files.ts";
import { WARNINGLIST_TYPES } from "./matchers.ts";

/** Largest list.json accepted: a million-entry list is about 30 MB. */
export const MAX_FILE_BYTES = 128 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
export const MAX_LISTS = 2000;
export const MAX_ENTRIES = 5_000_000;
export const MAX_ENTRY_LENGTH = 8192;
export const FETCH_TIMEOUT_MS = 60_000;
const FETCH_CONCURRENCY = 6;

const listSchema = z.object({
  name: z.string().trim().min(1).max(255),
  version: z.union([z.number().int().min(0).max(2_147_483_647), z.string().regex(/^\d{1,9}$/).transform(Number)]),
  description: z.string().max(100_000),
  type: z.enum(WARNINGLIST_TYPES),
  matching_attributes: z.array(z.string().min(1).max(100)).max(500).default([]),
  list: z.array(z.string().max(MAX_ENTRY_LENGTH)).max(MAX_ENTRIES),
});

export type WarninglistFile = z.infer<typeof listSchema> & { dir: string };

const LIMITS: SourceLimits = { setting: "WARNINGLISTS_SOURCE", source: "Warninglist source", maxFileBytes: MAX_FILE_BYTES, maxTotalBytes: MAX_TOTAL_BYTES, timeoutMs: FETCH_TIMEOUT_MS };

/**
 * Reads and validates every list of WARNINGLISTS_SOURCE (the misp-warninglists layout:
 * `lists/<name>/list.json`) before anything is written, so a bad file fails the whole run.
 * Unreachable sources are 503; unusable content is 400. Files are read one after the other, each
 * parsed and handed to `each` before the next is read, so a run holds one big list at a time.
 */
export async function readWarninglistSource(source: string, each: (list: WarninglistFile) => Promise<void>): Promise<"directory" | "url"> {
  const url = isUrlSource(source);
  const reader = new SourceReader(LIMITS);
  const names = url ? await namesFromUrl(source, reader) : await namesFromDirectory(source);
  const seen = new Map<string, string>();
  const read = (name: string) => {
    const p = url ? fetchList(source, reader, name, names.strict) : reader.readInside(names.root!, `${name}/list.json`);
    // Awaited in order below; a later read failing first must not count as unhandled.
    p.catch(() => undefined);
    return p;
  };
  // Fetches overlap (a few at a time); parsing and writing stay in order, one list at a time.
  let pending = names.list.slice(0, FETCH_CONCURRENCY).map(read);
  for (let i = 0; i < names.list.length; i++) {
    const name = names.list[i];
    const text = await pending[0];
    pending = pending.slice(1);
    const nextIndex = i + FETCH_CONCURRENCY;
    if (nextIndex < names.list.length) pending.push(read(names.list[nextIndex]));
    if (text === null) continue;
    const list = { ...parseSourceJson(listSchema, text, `lists/${name}/list.json`, "warninglist"), dir: name };
    const other = seen.get(list.name);
    if (other) throw errors.badRequest(`lists/${name}/list.json and lists/${other}/list.json have the same name`);
    seen.set(list.name, name);
    await each(list);
  }
  return url ? "url" : "directory";
}

// ---- local directory ----

/** `lists/<name>/list.json` under the directory (or `<name>/list.json` when it is the lists directory itself). */
async function namesFromDirectory(dir: string): Promise<{ root: string; list: string[]; strict: true }> {
  let root: string;
  try {
    root = await fs.realpath(dir);
    if (!(await fs.stat(root)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw errors.unavailable("WARNINGLISTS_SOURCE is not a readable directory");
  }
  const lists = path.join(root, "lists");
  if (await fs.stat(lists).then((s) => s.isDirectory(), () => false)) root = await fs.realpath(lists);
  const names: string[] = [];
  for (const e of await fs.readdir(root, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    if (await fs.access(path.join(root, e.name, "list.json")).then(() => true, () => false)) names.push(e.name);
  }
  names.sort();
  if (names.length > MAX_LISTS) throw errors.badRequest(`WARNINGLISTS_SOURCE holds more than ${MAX_LISTS} lists`);
  const bad = names.find((n) => !isSafeSourceName(n));
  if (bad !== undefined) throw errors.badRequest(`lists/${bad.slice(0, 100)}/list.json: unsupported directory name`);
  return { root, list: names, strict: true };
}

// ---- URL ----

const indexSchema = z.array(z.string().max(200)).max(MAX_LISTS);
const README_LINK = /\(\.?\/?lists\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})\/list\.json\)/g;

/**
 * A URL source is the repository's raw files: the lists are named by `lists/index.json` when the
 * source publishes one (a mirror), else by the links of its README.md (as misp-warninglists has it).
 * Every list an index names must exist; a README may name lists its copy lacks (`strict` false):
 * those are skipped.
 */
async function namesFromUrl(source: string, reader: SourceReader): Promise<{ root: null; list: string[]; strict: boolean }> {
  const base = source.replace(/\/+$/, "");
  let names: string[];
  let strict = true;
  const index = await reader.fetchText(`${base}/lists/index.json`, "lists/index.json");
  if (index !== null) {
    names = parseSourceJson(indexSchema, index, "lists/index.json", "list index");
  } else {
    const readme = await reader.fetchText(`${base}/README.md`, "README.md");
    if (readme === null) throw errors.unavailable("WARNINGLISTS_SOURCE has neither lists/index.json nor README.md (HTTP 404)");
    names = [...readme.matchAll(README_LINK)].map((m) => m[1]);
    strict = false;
    if (names.length === 0) throw errors.badRequest("README.md of WARNINGLISTS_SOURCE links no lists/<name>/list.json");
  }
  names = [...new Set(names)].sort();
  if (names.length > MAX_LISTS) throw errors.badRequest(`WARNINGLISTS_SOURCE holds more than ${MAX_LISTS} lists`);
  const bad = names.find((n) => !isSafeSourceName(n));
  if (bad !== undefined) throw errors.badRequest(`unsupported list name "${bad.slice(0, 100)}"`);
  return { root: null, list: names, strict };
}

async function fetchList(source: string, reader: SourceReader, name: string, strict: boolean): Promise<string | null> {
  const text = await reader.fetchText(`${source.replace(/\/+$/, "")}/lists/${name}/list.json`, `lists/${name}/list.json`);
  if (text === null && strict) throw errors.badRequest(`lists/${name}/list.json is listed in lists/index.json but missing`);
  return text;
}
