import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { errors } from "../../platform/errors.ts";
import { isSafeSourceName, isUrlSource, mapLimit, parseSourceJson, SourceReader, type SourceLimits } from "../../platform/source-files.ts";

/** Largest machinetag.json accepted (the biggest misp-taxonomies file is well under 1 MB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Largest total read in one run, whatever the number of files. */
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
export const MAX_TAXONOMIES = 2000;
export const FETCH_TIMEOUT_MS = 30_000;
const FETCH_CONCURRENCY = 6;

/** Directory names become path and URL segments: plain names only (no separators, no `..`, nothing hidden). */
export const isSafeTaxonomyName = isSafeSourceName;

/** Parts of tag names (`namespace:predicate="entry"`), which B-tree indexes must hold: bounded, no double quote. */
const tagPart = (max: number) =>
  z
    .string()
    .min(1)
    .refine((v) => Buffer.byteLength(v) <= max, `must be at most ${max} bytes`)
    .refine((v) => !v.includes('"'), "must not contain a double quote");
const text = z.string().max(100_000);
const numerical = z.number().int().min(-2_147_483_648).max(2_147_483_647);
const colour = z.string().max(64);
const guid = z.guid().transform((u) => u.toLowerCase());

const predicateSchema = z.object({
  value: tagPart(500),
  uuid: guid.optional(),
  expanded: text.optional(),
  description: text.optional(),
  colour: colour.optional(),
  numerical_value: numerical.optional(),
  exclusive: z.boolean().optional(),
});

const entrySchema = z.object({
  value: tagPart(1500),
  uuid: guid.optional(),
  expanded: text.optional(),
  description: text.optional(),
  colour: colour.optional(),
  numerical_value: numerical.optional(),
});

const machinetagSchema = z.object({
  namespace: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "must be a plain identifier"),
  uuid: guid.optional(),
  description: text.default(""),
  expanded: text.optional(),
  version: z.union([z.number().int().min(0).max(2_147_483_647), z.string().regex(/^\d{1,9}$/).transform(Number)]).default(0),
  exclusive: z.boolean().default(false),
  predicates: z.array(predicateSchema).max(10_000),
  values: z.array(z.object({ predicate: tagPart(500), entry: z.array(entrySchema).max(100_000) })).max(10_000).default([]),
});

export type MachineTag = z.infer<typeof machinetagSchema>;

export interface LoadedTaxonomies {
  kind: "directory" | "url";
  taxonomies: MachineTag[];
}

const LIMITS: SourceLimits = { setting: "TAXONOMIES_SOURCE", source: "Taxonomy source", maxFileBytes: MAX_FILE_BYTES, maxTotalBytes: MAX_TOTAL_BYTES, timeoutMs: FETCH_TIMEOUT_MS };
const parseFile = <T>(schema: z.ZodType<T>, text: string, where: string) => parseSourceJson(schema, text, where, "taxonomy file");

/**
 * Reads and validates every taxonomy of TAXONOMIES_SOURCE before anything is written, so a bad
 * file fails the whole run. Unreachable sources are 503; unusable content is 400.
 */
export async function loadTaxonomySource(source: string): Promise<LoadedTaxonomies> {
  const files = isUrlSource(source) ? await loadFromUrl(source) : await loadFromDirectory(source);
  const taxonomies = files.map((f) => parseMachineTag(f.text, `${f.name}/machinetag.json`));
  const seen = new Map<string, string>();
  taxonomies.forEach((t, i) => {
    const other = seen.get(t.namespace);
    if (other) throw errors.badRequest(`${files[i].name}/machinetag.json and ${other}/machinetag.json have the same namespace`);
    seen.set(t.namespace, files[i].name);
  });
  return { kind: isUrlSource(source) ? "url" : "directory", taxonomies };
}

function parseMachineTag(raw: string, where: string): MachineTag {
  const t = parseFile(machinetagSchema, raw, where);
  const predicates = new Set<string>();
  for (const p of t.predicates) {
    if (predicates.has(p.value)) throw errors.badRequest(`${where} lists predicate "${p.value.slice(0, 100)}" twice`);
    predicates.add(p.value);
  }
  const valued = new Set<string>();
  for (const v of t.values) {
    if (!predicates.has(v.predicate)) throw errors.badRequest(`${where} has values for unknown predicate "${v.predicate.slice(0, 100)}"`);
    if (valued.has(v.predicate)) throw errors.badRequest(`${where} lists the values of predicate "${v.predicate.slice(0, 100)}" twice`);
    valued.add(v.predicate);
    const entries = new Set<string>();
    for (const e of v.entry) {
      if (entries.has(e.value)) throw errors.badRequest(`${where} lists entry "${e.value.slice(0, 100)}" of "${v.predicate.slice(0, 100)}" twice`);
      entries.add(e.value);
    }
  }
  return t;
}

interface RawFile {
  name: string;
  text: string;
}

// ---- local directory ----

/** `<name>/machinetag.json` for every subdirectory; every path is resolved and must stay inside the directory. */
async function loadFromDirectory(dir: string): Promise<RawFile[]> {
  let root: string;
  try {
    root = await fs.realpath(dir);
    if (!(await fs.stat(root)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw errors.unavailable("TAXONOMIES_SOURCE is not a readable directory");
  }
  const entries = await fs.readdir(root, { withFileTypes: true });
  const names: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    try {
      await fs.access(path.join(root, e.name, "machinetag.json"));
      names.push(e.name);
    } catch {
      // a directory without a taxonomy (tools/, documentation, ...)
    }
  }
  names.sort();
  if (names.length > MAX_TAXONOMIES) throw errors.badRequest(`TAXONOMIES_SOURCE holds more than ${MAX_TAXONOMIES} taxonomies`);
  const reader = new SourceReader(LIMITS);
  const out: RawFile[] = [];
  for (const name of names) {
    if (!isSafeTaxonomyName(name)) throw errors.badRequest(`${name.slice(0, 100)}/machinetag.json: unsupported directory name`);
    out.push({ name, text: await reader.readInside(root, `${name}/machinetag.json`) });
  }
  return out;
}

// ---- URL ----

const manifestSchema = z.object({ taxonomies: z.array(z.object({ name: z.string().max(200) })).max(MAX_TAXONOMIES) });

/** A URL source is listed by its `MANIFEST.json` (as misp-taxonomies publishes it); every listed taxonomy must exist. */
async function loadFromUrl(source: string): Promise<RawFile[]> {
  const base = source.replace(/\/+$/, "");
  const reader = new SourceReader(LIMITS);
  const manifestText = await reader.fetchText(`${base}/MANIFEST.json`, "MANIFEST.json");
  if (manifestText === null) throw errors.unavailable("TAXONOMIES_SOURCE has no MANIFEST.json (HTTP 404)");
  const names = [...new Set(parseFile(manifestSchema, manifestText, "MANIFEST.json").taxonomies.map((t) => t.name))].sort();
  const bad = names.find((n) => !isSafeTaxonomyName(n));
  if (bad !== undefined) throw errors.badRequest(`MANIFEST.json: unsupported taxonomy name "${bad.slice(0, 100)}"`);
  return mapLimit(names, FETCH_CONCURRENCY, async (name) => {
    const body = await reader.fetchText(`${base}/${name}/machinetag.json`, `${name}/machinetag.json`);
    if (body === null) throw errors.badRequest(`${name}/machinetag.json is listed in MANIFEST.json but missing`);
    return { name, text: body };
  });
}
