/**
 * What the PostgreSQL backend stores per document, precomputed at index time from `../fields.ts`
 * so that searches need no per-row parsing:
 *
 * - `source`: the document as given (returned in hits), stored packed with `postingKeys` as `body`
 *   (`./packing.ts`, table version 11);
 * - `fields` (JSONB): `{ "<field>": [values...] }`, only for fields that have at least one value
 *   (so `_exists_:f` is a test on its keys). Indexed (GIN `jsonb_path_ops`) only for the fields
 *   without postings (`./unposted.ts`, table version 12). Values by type:
 *     keyword -> exact strings (numbers/booleans as strings, as OpenSearch coerces them; values
 *                over 8 191 characters are left out, as `ignore_above` does);
 *     text    -> the analysed tokens (`./analyzer.ts`, deduplicated), plus `"<field>.keyword"` with
 *                the exact values (same cap);
 *     long    -> integers (numeric strings coerced, fractions truncated), boolean -> booleans
 *                ("true"/"false"/"" accepted), date -> epoch milliseconds, ip -> address strings,
 *                ip_range -> CIDR strings; values that do not parse are left out (OpenSearch
 *                would reject the document; the indexer must not lose the other fields).
 *   Equality is then `fields @> '{"f":[v]}'` (on the row; the GIN's expression for the fields without postings).
 * - `phrases` (JSONB): per text field, one string per value: ` tok1 tok2 ... ` (tokens in order,
 *   space-separated and space-framed), for phrase queries (`strpos`), after the GIN candidate test.
 *   Values are kept apart, like OpenSearch's position_increment_gap, so phrases never span values.
 * - `ts`: `@timestamp` (btree; sort and ranges on `@timestamp`).
 * - `visible_to`: computed by PostgreSQL from `fields` (generated column, `./access.ts`).
 */
import { INDEX_FIELDS, type FieldType } from "../fields.ts";
import type { IndexName, SearchDocument } from "../search-index.ts";
import { analyze } from "./analyzer.ts";
import { parseDate } from "./dates.ts";
import { parseCidr, parseIp } from "./ip.ts";
import { postingKeys } from "./postings.ts";

export const KEYWORD_IGNORE_ABOVE = 8191;

export interface DocumentRow {
  id: string;
  source: Record<string, unknown>;
  fields: Record<string, unknown[]>;
  phrases: Record<string, string[]>;
  ts: string | null;
  /** Its terms in `search_postings` (`./postings.ts`), stored packed in `body` (`./packing.ts`). */
  postingKeys: string[];
}

/** All values at a dotted path (arrays flattened at every level; literal dotted keys accepted). */
export function valuesAt(obj: unknown, path: string[]): unknown[] {
  const out: unknown[] = [];
  collect(obj, dottedPath(path), 0, out);
  return out;
}

/**
 * A path with its dotted keys made once: `keys[from][to - from - 1]` is `path.slice(from, to).join(".")`.
 * buildRow looks up every field of its index in every document (~40 paths, most of them absent):
 * joining the keys again each time was a sixth of its CPU (bench/README.md "Feed ingest").
 */
interface DottedPath {
  length: number;
  keys: string[][];
}

function dottedPath(path: string[]): DottedPath {
  return { length: path.length, keys: path.map((_, from) => path.slice(from).map((__, i) => path.slice(from, from + i + 1).join("."))) };
}

/** valuesAt from `path` element `from` on, appended to `out` in the same order. */
function collect(obj: unknown, path: DottedPath, from: number, out: unknown[]): void {
  if (Array.isArray(obj)) {
    for (const v of obj) collect(v, path, from, out);
    return;
  }
  if (from === path.length) {
    if (obj !== null && obj !== undefined) out.push(obj);
    return;
  }
  if (obj === null || typeof obj !== "object") return;
  const rec = obj as Record<string, unknown>;
  const keys = path.keys[from]!;
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    if (Object.prototype.hasOwnProperty.call(rec, key)) collect(rec[key], path, from + i + 1, out);
  }
}

/** At most KEYWORD_IGNORE_ABOVE code points (UTF-16 units are never fewer: most strings need no count). */
const withinIgnoreAbove = (s: string) => s.length <= KEYWORD_IGNORE_ABOVE || [...s].length <= KEYWORD_IGNORE_ABOVE;

function asString(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return null;
}

export function toLong(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v === "string" && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? Math.trunc(n) : null;
  }
  return null;
}

export function toBoolean(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false" || v === "") return false;
  return null;
}

function toDate(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : null;
  return typeof v === "string" ? parseDate(v) : null;
}

function typedValues(type: FieldType, raw: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of raw) {
    switch (type) {
      case "keyword": {
        const s = asString(v);
        if (s !== null && withinIgnoreAbove(s)) out.push(s);
        break;
      }
      case "long": {
        const n = toLong(v);
        if (n !== null) out.push(n);
        break;
      }
      case "boolean": {
        const b = toBoolean(v);
        if (b !== null) out.push(b);
        break;
      }
      case "date": {
        const d = toDate(v);
        if (d !== null) out.push(d);
        break;
      }
      case "ip": {
        const s = asString(v);
        const ip = s === null ? null : parseIp(s);
        if (ip !== null) out.push(ip);
        break;
      }
      case "ip_range": {
        const s = asString(v);
        const r = s === null ? null : parseCidr(s);
        if (r !== null) out.push(r);
        break;
      }
      case "text":
        break;
    }
  }
  return [...new Set(out)];
}

/** Each index's fields with their paths made once (`dottedPath`). */
const FIELD_PATHS = new Map(
  (Object.keys(INDEX_FIELDS) as IndexName[]).map((index) => [
    index,
    Object.entries(INDEX_FIELDS[index].fields).map(([name, type]) => ({ name, type, path: dottedPath(name.split(".")) })),
  ]),
);

/**
 * The tokens of a text value, remembered: a feed's documents repeat most of their text values
 * (category, type, tags, an event's info in each of its attributes), and the analyser (ICU
 * segmentation) was a third of buildRow's CPU. The lists are shared: never modified.
 */
const analyzed = new Map<string, readonly string[]>();
const ANALYZED_MAX = 20_000;
/** Values this long are rarely repeated: not kept. */
const ANALYZED_MAX_LENGTH = 256;

function tokensOf(s: string): readonly string[] {
  let tokens = analyzed.get(s);
  if (tokens === undefined) {
    tokens = analyze(s);
    if (s.length <= ANALYZED_MAX_LENGTH) {
      if (analyzed.size >= ANALYZED_MAX) analyzed.clear();
      analyzed.set(s, tokens);
    }
  }
  return tokens;
}

export function buildRow(index: IndexName, doc: SearchDocument): DocumentRow {
  const fields: Record<string, unknown[]> = {};
  const phrases: Record<string, string[]> = {};
  const tokenLists: Record<string, (readonly string[])[]> = {};
  for (const { name, type, path } of FIELD_PATHS.get(index)!) {
    const raw: unknown[] = [];
    collect(doc.source, path, 0, raw);
    if (raw.length === 0) continue;
    if (type === "text") {
      const strings: string[] = [];
      for (const v of raw) {
        const s = asString(v);
        if (s !== null) strings.push(s);
      }
      if (strings.length === 0) continue;
      const lists = strings.map(tokensOf);
      phrases[name] = lists.map((toks) => ` ${toks.join(" ")} `);
      tokenLists[name] = lists;
      fields[name] = [...new Set(lists.flat())];
      const exact = [...new Set(strings.filter(withinIgnoreAbove))];
      if (exact.length) fields[`${name}.keyword`] = exact;
      continue;
    }
    const values = typedValues(type, raw);
    if (values.length === 0) continue;
    fields[name] = values;
  }
  const ts = fields["@timestamp"]?.[0];
  return {
    id: doc.id,
    source: doc.source,
    fields,
    phrases,
    ts: typeof ts === "number" ? new Date(ts).toISOString() : null,
    postingKeys: postingKeys(index, fields, tokenLists),
  };
}
