import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError, errors } from "../../platform/errors.ts";

/** Largest galaxy or cluster file accepted (the biggest misp-galaxy file is a few MB). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Largest total read in one run, whatever the number of files. */
export const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
export const MAX_GALAXIES = 2000;
export const FETCH_TIMEOUT_MS = 30_000;
const FETCH_CONCURRENCY = 6;

/** The galaxy every source is expected to carry: the spec's fw-attack-pattern galaxy. */
export const ATTACK_PATTERN_TYPE = "mitre-attack-pattern";

/**
 * A galaxy file name without `.json`. Names become path segments and URL segments, so only plain
 * names pass: no separators, no `..`, nothing hidden.
 */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const isSafeGalaxyName = (name: string) => SAFE_NAME.test(name) && !name.includes("..");

/** Galaxy types end up in tag names (`misp-galaxy:<type>="<value>"`): plain identifiers only. */
const galaxyType = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, "must be a plain identifier");
const version = z.union([z.number(), z.string().max(64)]).transform(String);
const guid = z.guid().transform((u) => u.toLowerCase());

const galaxyFileSchema = z.object({
  uuid: guid,
  name: z.string().min(1).max(255),
  type: galaxyType,
  description: z.string().max(100_000).default(""),
  version: version.default(""),
  icon: z.string().max(255).default(""),
  namespace: z.string().max(255).default("misp"),
  kill_chain_order: z.record(z.string(), z.array(z.string())).optional(),
});

const clusterSchema = z.object({
  uuid: guid,
  // The value is part of the tag name, which B-tree indexes must hold (about 2.7 kB at most).
  value: z.string().min(1).refine((v) => Buffer.byteLength(v) <= 2000, "must be at most 2000 bytes"),
  description: z.string().max(1_000_000).default(""),
  meta: z.record(z.string(), z.unknown()).default({}),
  related: z.array(z.unknown()).default([]),
});

const clusterFileSchema = z.object({
  uuid: guid.optional(),
  type: galaxyType,
  authors: z.array(z.string().max(1000)).max(1000).nullable().default([]),
  source: z.string().max(10_000).default(""),
  version: version.default(""),
  values: z.array(clusterSchema).max(500_000),
});

export type GalaxyFile = z.infer<typeof galaxyFileSchema>;
export type ClusterFile = z.infer<typeof clusterFileSchema>;

export interface GalaxyBundle {
  /** File name without `.json`. */
  name: string;
  galaxy: GalaxyFile;
  clusters: ClusterFile;
}

export interface LoadedSource {
  kind: "directory" | "url";
  bundles: GalaxyBundle[];
}

export const isUrlSource = (source: string) => /^https?:\/\//i.test(source);

/**
 * Reads and validates every galaxy of GALAXY_SOURCE before anything is written, so a bad file
 * fails the whole run. Unreachable sources are 503; unusable content is 400.
 * `knownNames` gives the names to try on a URL source without an index (see `loadFromUrl`).
 */
export async function loadGalaxySource(source: string, knownNames: () => Promise<string[]>): Promise<LoadedSource> {
  const files = isUrlSource(source) ? await loadFromUrl(source, knownNames) : await loadFromDirectory(source);
  const bundles = files.map(parseBundle);
  const seen = new Map<string, string>();
  for (const b of bundles) {
    const other = seen.get(b.galaxy.uuid);
    if (other) throw errors.badRequest(`galaxies/${b.name}.json and galaxies/${other}.json have the same uuid`);
    seen.set(b.galaxy.uuid, b.name);
  }
  return { kind: isUrlSource(source) ? "url" : "directory", bundles };
}

interface RawBundle {
  name: string;
  galaxy: string;
  clusters: string;
}

function parseBundle(raw: RawBundle): GalaxyBundle {
  const galaxy = parseFile(galaxyFileSchema, raw.galaxy, `galaxies/${raw.name}.json`);
  const clusters = parseFile(clusterFileSchema, raw.clusters, `clusters/${raw.name}.json`);
  if (clusters.type !== galaxy.type) {
    throw errors.badRequest(`clusters/${raw.name}.json has type "${clusters.type}" but its galaxy has type "${galaxy.type}"`);
  }
  const uuids = new Set<string>();
  for (const c of clusters.values) {
    if (uuids.has(c.uuid)) throw errors.badRequest(`clusters/${raw.name}.json lists cluster ${c.uuid} twice`);
    uuids.add(c.uuid);
  }
  return { name: raw.name, galaxy, clusters };
}

function parseFile<T>(schema: z.ZodType<T>, text: string, where: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text, storable);
  } catch (err) {
    if (err instanceof NulCharacter) throw errors.badRequest(`${where} contains NUL characters`);
    throw errors.badRequest(`${where} is not valid JSON`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw errors.badRequest(`${where} is not a valid galaxy file: ${issues.join("; ")}`);
  }
  return result.data;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

class NulCharacter extends Error {}

/**
 * PostgreSQL stores neither NUL characters (text, jsonb) nor lone surrogates (jsonb): refuse the
 * first as unusable input and replace the second, so hostile files give a 400, never a 500.
 */
function storable(key: string, value: unknown): unknown {
  if (key.includes("\u0000")) throw new NulCharacter();
  if (typeof value !== "string") return value;
  if (value.includes("\u0000")) throw new NulCharacter();
  return LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, "\uFFFD") : value;
}

// ---- local directory ----

const isWithin = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/**
 * `galaxies/*.json` and `clusters/<same name>.json` under the directory. Every path is resolved
 * (symbolic links included) and must stay inside the directory.
 */
async function loadFromDirectory(dir: string): Promise<RawBundle[]> {
  let root: string;
  try {
    root = await fs.realpath(dir);
    if (!(await fs.stat(root)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw errors.unavailable("GALAXY_SOURCE is not a readable directory");
  }
  let galaxiesDir: string;
  try {
    galaxiesDir = await fs.realpath(path.join(root, "galaxies"));
  } catch {
    throw errors.unavailable("GALAXY_SOURCE has no galaxies/ directory");
  }
  if (!isWithin(root, galaxiesDir)) throw errors.badRequest("galaxies/ resolves outside GALAXY_SOURCE");
  const names = (await fs.readdir(galaxiesDir)).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
  if (names.length > MAX_GALAXIES) throw errors.badRequest(`GALAXY_SOURCE holds more than ${MAX_GALAXIES} galaxies`);
  const budget = { left: MAX_TOTAL_BYTES };
  const out: RawBundle[] = [];
  for (const name of names) {
    if (!isSafeGalaxyName(name)) throw errors.badRequest(`galaxies/${name.slice(0, 100)}.json: unsupported file name`);
    out.push({
      name,
      galaxy: await readInside(root, `galaxies/${name}.json`, budget),
      clusters: await readInside(root, `clusters/${name}.json`, budget),
    });
  }
  return out;
}

async function readInside(root: string, rel: string, budget: { left: number }): Promise<string> {
  let real: string;
  try {
    real = await fs.realpath(path.join(root, rel));
  } catch {
    throw errors.badRequest(`${rel} is missing`);
  }
  if (!isWithin(root, real)) throw errors.badRequest(`${rel} resolves outside GALAXY_SOURCE`);
  const st = await fs.stat(real);
  if (!st.isFile()) throw errors.badRequest(`${rel} is not a file`);
  if (st.size > MAX_FILE_BYTES) throw errors.badRequest(`${rel} is larger than ${MAX_FILE_BYTES} bytes`);
  budget.left -= st.size;
  if (budget.left < 0) throw errors.badRequest(`GALAXY_SOURCE is larger than ${MAX_TOTAL_BYTES} bytes in total`);
  return fs.readFile(real, "utf8");
}

// ---- URL ----

/**
 * A URL source cannot be listed, so the names come from `<base>/index.json` (a JSON array of
 * galaxy file names, with or without `.json`) when the source publishes one; without an index
 * (404) the run refreshes the galaxies already imported (their type is their file name in
 * misp-galaxy) plus `mitre-attack-pattern`, and names that are not found upstream are skipped.
 * A galaxy whose clusters file is missing is an error.
 */
async function loadFromUrl(source: string, knownNames: () => Promise<string[]>): Promise<RawBundle[]> {
  const base = source.replace(/\/+$/, "");
  const budget = { left: MAX_TOTAL_BYTES };
  const indexText = await fetchText(`${base}/index.json`, "index.json", budget);
  let names: string[];
  let fromIndex = false;
  if (indexText !== null) {
    fromIndex = true;
    const index = parseFile(z.array(z.string().max(200)).max(MAX_GALAXIES), indexText, "index.json");
    names = index.map((n) => n.replace(/\.json$/, ""));
    const bad = names.find((n) => !isSafeGalaxyName(n));
    if (bad !== undefined) throw errors.badRequest(`index.json: unsupported galaxy name "${bad.slice(0, 100)}"`);
  } else {
    names = [...(await knownNames()).filter(isSafeGalaxyName), ATTACK_PATTERN_TYPE];
  }
  names = [...new Set(names)].sort();
  const results = await mapLimit(names, FETCH_CONCURRENCY, async (name): Promise<RawBundle | null> => {
    const galaxy = await fetchText(`${base}/galaxies/${name}.json`, `galaxies/${name}.json`, budget);
    if (galaxy === null) {
      if (fromIndex) throw errors.badRequest(`galaxies/${name}.json is listed in index.json but missing`);
      return null;
    }
    const clusters = await fetchText(`${base}/clusters/${name}.json`, `clusters/${name}.json`, budget);
    if (clusters === null) throw errors.badRequest(`clusters/${name}.json is missing`);
    return { name, galaxy, clusters };
  });
  const found = results.filter((r): r is RawBundle => r !== null);
  if (found.length === 0 && names.length > 0) throw errors.unavailable("GALAXY_SOURCE has none of the expected galaxies (HTTP 404)");
  return found;
}

/** GET with a timeout and a size cap; `null` for 404. Messages name the file, never the URL (it may carry credentials). */
async function fetchText(url: string, what: string, budget: { left: number }): Promise<string | null> {
  let res: Response;
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  try {
    res = await fetch(url, { signal, headers: { accept: "application/json" }, redirect: "follow" });
  } catch (err) {
    throw errors.unavailable(`Galaxy source unreachable for ${what}: ${fetchFailure(err)}`);
  }
  if (res.status === 404) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw errors.unavailable(`Galaxy source answered HTTP ${res.status} for ${what}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (declared > MAX_FILE_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw errors.badRequest(`${what} is larger than ${MAX_FILE_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = res.body?.getReader();
    for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
      size += r.value.byteLength;
      if (size > MAX_FILE_BYTES) {
        await reader!.cancel().catch(() => undefined);
        throw errors.badRequest(`${what} is larger than ${MAX_FILE_BYTES} bytes`);
      }
      chunks.push(r.value);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw errors.unavailable(`Galaxy source failed while sending ${what}: ${fetchFailure(err)}`);
  }
  budget.left -= size;
  if (budget.left < 0) throw errors.badRequest(`GALAXY_SOURCE is larger than ${MAX_TOTAL_BYTES} bytes in total`);
  return Buffer.concat(chunks).toString("utf8");
}

function fetchFailure(err: unknown): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${FETCH_TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err instanceof Error ? err.message.slice(0, 200) : "request failed");
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(workers);
  return out;
}
