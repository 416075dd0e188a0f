import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError, errors } from "../../platform/errors.ts";

/** Largest machinetag.json accepted (the biggest misp-taxonomies file is well under 1 MB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Largest total read in one run, whatever the number of files. */
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
export const MAX_TAXONOMIES = 2000;
export const FETCH_TIMEOUT_MS = 30_000;
const FETCH_CONCURRENCY = 6;

/** Directory names become path and URL segments: plain names only (no separators, no `..`, nothing hidden). */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const isSafeTaxonomyName = (name: string) => SAFE_NAME.test(name) && !name.includes("..");

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

export const isUrlSource = (source: string) => /^https?:\/\//i.test(source);

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

function parseFile<T>(schema: z.ZodType<T>, raw: string, where: string): T {
  let json: unknown;
  try {
    json = JSON.parse(raw, storable);
  } catch (err) {
    if (err instanceof NulCharacter) throw errors.badRequest(`${where} contains NUL characters`);
    throw errors.badRequest(`${where} is not valid JSON`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw errors.badRequest(`${where} is not a valid taxonomy file: ${issues.join("; ")}`);
  }
  return result.data;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

class NulCharacter extends Error {}

/** PostgreSQL stores no NUL characters: refuse them (400); lone surrogates are replaced. */
function storable(key: string, value: unknown): unknown {
  if (key.includes("\u0000")) throw new NulCharacter();
  if (typeof value !== "string") return value;
  if (value.includes("\u0000")) throw new NulCharacter();
  return LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, "\uFFFD") : value;
}

interface RawFile {
  name: string;
  text: string;
}

// ---- local directory ----

const isWithin = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

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
  const budget = { left: MAX_TOTAL_BYTES };
  const out: RawFile[] = [];
  for (const name of names) {
    if (!isSafeTaxonomyName(name)) throw errors.badRequest(`${name.slice(0, 100)}/machinetag.json: unsupported directory name`);
    const rel = `${name}/machinetag.json`;
    const real = await fs.realpath(path.join(root, rel));
    if (!isWithin(root, real)) throw errors.badRequest(`${rel} resolves outside TAXONOMIES_SOURCE`);
    const st = await fs.stat(real);
    if (!st.isFile()) throw errors.badRequest(`${rel} is not a file`);
    if (st.size > MAX_FILE_BYTES) throw errors.badRequest(`${rel} is larger than ${MAX_FILE_BYTES} bytes`);
    budget.left -= st.size;
    if (budget.left < 0) throw errors.badRequest(`TAXONOMIES_SOURCE is larger than ${MAX_TOTAL_BYTES} bytes in total`);
    out.push({ name, text: await fs.readFile(real, "utf8") });
  }
  return out;
}

// ---- URL ----

const manifestSchema = z.object({ taxonomies: z.array(z.object({ name: z.string().max(200) })).max(MAX_TAXONOMIES) });

/** A URL source is listed by its `MANIFEST.json` (as misp-taxonomies publishes it); every listed taxonomy must exist. */
async function loadFromUrl(source: string): Promise<RawFile[]> {
  const base = source.replace(/\/+$/, "");
  const budget = { left: MAX_TOTAL_BYTES };
  const manifestText = await fetchText(`${base}/MANIFEST.json`, "MANIFEST.json", budget);
  if (manifestText === null) throw errors.unavailable("TAXONOMIES_SOURCE has no MANIFEST.json (HTTP 404)");
  const names = [...new Set(parseFile(manifestSchema, manifestText, "MANIFEST.json").taxonomies.map((t) => t.name))].sort();
  const bad = names.find((n) => !isSafeTaxonomyName(n));
  if (bad !== undefined) throw errors.badRequest(`MANIFEST.json: unsupported taxonomy name "${bad.slice(0, 100)}"`);
  return mapLimit(names, FETCH_CONCURRENCY, async (name) => {
    const body = await fetchText(`${base}/${name}/machinetag.json`, `${name}/machinetag.json`, budget);
    if (body === null) throw errors.badRequest(`${name}/machinetag.json is listed in MANIFEST.json but missing`);
    return { name, text: body };
  });
}

/** GET with a timeout and a size cap; `null` for 404. Messages name the file, never the URL (it may carry credentials). */
async function fetchText(url: string, what: string, budget: { left: number }): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: "application/json" }, redirect: "follow" });
  } catch (err) {
    throw errors.unavailable(`Taxonomy source unreachable for ${what}: ${fetchFailure(err)}`);
  }
  if (res.status === 404 || !res.ok) {
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 404) return null;
    throw errors.unavailable(`Taxonomy source answered HTTP ${res.status} for ${what}`);
  }
  if (Number(res.headers.get("content-length") ?? "NaN") > MAX_FILE_BYTES) {
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
    throw errors.unavailable(`Taxonomy source failed while sending ${what}: ${fetchFailure(err)}`);
  }
  budget.left -= size;
  if (budget.left < 0) throw errors.badRequest(`TAXONOMIES_SOURCE is larger than ${MAX_TOTAL_BYTES} bytes in total`);
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
