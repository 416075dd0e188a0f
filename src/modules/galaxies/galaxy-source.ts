import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { errors } from "../../platform/errors.ts";
import { isInside, isSafeSourceName, isUrlSource, mapLimit, parseSourceJson, SourceReader, type SourceLimits } from "../../platform/source-files.ts";

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
export const isSafeGalaxyName = isSafeSourceName;

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

const LIMITS: SourceLimits = { setting: "GALAXY_SOURCE", source: "Galaxy source", maxFileBytes: MAX_FILE_BYTES, maxTotalBytes: MAX_TOTAL_BYTES, timeoutMs: FETCH_TIMEOUT_MS };
const parseFile = <T>(schema: z.ZodType<T>, text: string, where: string) => parseSourceJson(schema, text, where, "galaxy file");

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

// ---- local directory ----

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
  if (!isInside(root, galaxiesDir)) throw errors.badRequest("galaxies/ resolves outside GALAXY_SOURCE");
  const names = (await fs.readdir(galaxiesDir)).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
  if (names.length > MAX_GALAXIES) throw errors.badRequest(`GALAXY_SOURCE holds more than ${MAX_GALAXIES} galaxies`);
  const reader = new SourceReader(LIMITS);
  const out: RawBundle[] = [];
  for (const name of names) {
    if (!isSafeGalaxyName(name)) throw errors.badRequest(`galaxies/${name.slice(0, 100)}.json: unsupported file name`);
    out.push({
      name,
      galaxy: await reader.readInside(root, `galaxies/${name}.json`),
      clusters: await reader.readInside(root, `clusters/${name}.json`),
    });
  }
  return out;
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
  const reader = new SourceReader(LIMITS);
  const indexText = await reader.fetchText(`${base}/index.json`, "index.json");
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
    const galaxy = await reader.fetchText(`${base}/galaxies/${name}.json`, `galaxies/${name}.json`);
    if (galaxy === null) {
      if (fromIndex) throw errors.badRequest(`galaxies/${name}.json is listed in index.json but missing`);
      return null;
    }
    const clusters = await reader.fetchText(`${base}/clusters/${name}.json`, `clusters/${name}.json`);
    if (clusters === null) throw errors.badRequest(`clusters/${name}.json is missing`);
    return { name, galaxy, clusters };
  });
  const found = results.filter((r): r is RawBundle => r !== null);
  if (found.length === 0 && names.length > 0) throw errors.unavailable("GALAXY_SOURCE has none of the expected galaxies (HTTP 404)");
  return found;
}

