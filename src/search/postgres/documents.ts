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
  if (path.length === 0) {
    if (Array.isArray(obj)) return obj.flatMap((v) => valuesAt(v, []));
    return obj === null || obj === undefined ? [] : [obj];
  }
  if (Array.isArray(obj)) return obj.flatMap((v) => valuesAt(v, path));
  if (obj === null || typeof obj !== "object") return [];
  const rec = obj as Record<string, unknown>;
  const out: unknown[] = [];
  for (let i = path.length; i >= 1; i--) {
    const key = path.slice(0, i).join(".");
    if (Object.prototype.hasOwnProperty.call(rec, key)) out.push(...valuesAt(rec[key], path.slice(i)));
  }
  return out;
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

export function buildRow(index: IndexName, doc: SearchDocument): DocumentRow {
  const fields: Record<string, unknown[]> = {};
  const phrases: Record<string, string[]> = {};
  const tokenLists: Record<string, string[][]> = {};
  for (const [name, type] of Object.entries(INDEX_FIELDS[index].fields)) {
    const raw = valuesAt(doc.source, name.split("."));
    if (raw.length === 0) continue;
    if (type === "text") {
      const strings = raw.map(asString).filter((s): s is string => s !== null);
      if (strings.length === 0) continue;
      const tokens = new Set<string>();
      const lists = strings.map((s) => analyze(s));
      for (const toks of lists) for (const t of toks) tokens.add(t);
      phrases[name] = lists.map((toks) => ` ${toks.join(" ")} `);
      tokenLists[name] = lists;
      fields[name] = [...tokens];
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
