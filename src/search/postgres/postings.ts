/**
 * Postings: the PostgreSQL backend's inverted index (table `search_postings`, `./schema.ts`).
 *
 * One row per (document, field, term), keyed `key = <index code><field>\x01<term>` with the
 * document's `ts` (its `@timestamp`, `-infinity` when it has none) and its number `doc`, in one
 * btree `(key, ts DESC, doc) INCLUDE (aud, fct, live)`. A term's documents are then an index-only
 * range in newest-first order, with the request filters (`live`: `deleted` holds `false`; `aud`: the
 * code of the organisations that may see it, NULL when everyone may, `./codes.ts`) and the
 * document's type (`fct`, coded, `./facets.ts`) in the index tuple: counting 10 001 matches
 * reads ~30 index pages instead of 10 001 rows of the ~2 KB documents (bench/README.md "Search").
 *
 * Terms, by field type (the same values `./documents.ts` puts in `fields`):
 * - keyword, text `.keyword`, text tokens: the string; strings over `MAX_TERM` code points keep
 *   their first `MAX_TERM` followed by `\x01` (so no query term of at most MAX_TERM equals it, and a
 *   prefix of at most MAX_TERM still finds it); a btree entry must stay under ~2.7 KB.
 * - text fields also get their adjacent token pairs, `<field>\x02<tok> <tok>` (two-word phrases).
 * - long and date (epoch ms): `n`/`p` + 19 digits (`n` for negatives, offset by 2^63), so that
 *   code point order is numeric order and a range is a key range.
 * - boolean: `true` / `false`; ip: `4` + 8 hex digits or `6` + 32 (CIDR blocks are key ranges).
 * - `@timestamp` is `ts`, not a term; ip_range fields and identifiers have no postings
 *   (`hasPostings`: their queries use the JSONB path).
 * - Every document has the key `<index code>\x01` (the empty field): match-all in ts order.
 * - Presence keys `<index code><field>\x03` (`PRESENCE_FIELDS`, as Lucene's `_field_names`): one per
 *   document that has a term of the field (a text field: of its tokens or `.keyword`). They are
 *   derived from the stored keys (`withPresenceKeys`), not stored with them.
 *
 * The term dictionary (table `search_terms`, `./terms.ts`): one row per distinct term of a keyword
 * or text field (`dictionaryEntry`), with its length and a trigram index, so that a wildcard or a
 * regex is first matched against the distinct terms (as Lucene runs it against its term dictionary)
 * and then reads the postings of the terms it matched. Entries are added with their first posting
 * and not removed with their last one (a term without postings finds nothing); `clearIndex` empties them.
 */
import { INDEX_FIELDS, type FieldType } from "../fields.ts";
import type { IndexName } from "../search-index.ts";

export const MAX_TERM = 255;
const FIELD_END = "\u0001";
const PAIR_END = "\u0002";
const PRESENCE_END = "\u0003";

/**
 * Fields whose presence has a key of its own (`presenceKey`): `_exists_:expanded.ip` then reads one
 * key newest first and stops at the bound, instead of every posting of the field's terms (25,714
 * postings of 19,543 keys at 1,000,000 attributes, read and sorted for one page). Optional fields of
 * many distinct values: for a field every document has, or one of few terms (read as their keys,
 * in order), the key would cost a posting per document and save nothing.
 */
const PRESENCE_FIELDS: Record<IndexName, ReadonlySet<string>> = {
  "svc-events": new Set(["tags.name"]),
  // Not `comment` nor `first_seen`: MISP attributes nearly all carry a comment (mostly empty) and,
  // in the shared feed sample, a first_seen.
  "svc-attributes": new Set(["expanded.ip", "last_seen", "tags.name"]),
  "svc-correlations": new Set(),
};

const INDEX_CODES: Record<IndexName, string> = { "svc-events": "e", "svc-attributes": "a", "svc-correlations": "c" };
const INDEX_BY_CODE = new Map(Object.entries(INDEX_CODES).map(([index, code]) => [code, index as IndexName]));

/**
 * Fields of one of few values in every document that searches read from each posting instead
 * (table version 9): the audience (`aud`), `deleted` (`live`, Explore's filter), the event's access
 * fields copied into its documents, and `disable_correlation`. Each cost a posting per document
 * (6 of ~23 per attribute, a quarter of the postings, bench/README.md "Search"); a query that names
 * one takes the JSONB path (`fields @>`, GIN).
 */
const BOOKKEEPING = /^(visible_to|deleted|disable_correlation|(event_|source_event_|target_event_)(distribution|org_id|orgc_id))$/;

/**
 * Fields with postings: not ip_range fields, not the bookkeeping fields (`BOOKKEEPING`), and not the
 * identifiers (`uuid`, `event_uuid`, ...): one document (or one event's) per value, which the JSONB
 * index already finds with a few rows, so their postings would cost writes and space for nothing (a
 * query on one takes the JSONB path).
 */
export function hasPostings(field: string, type: FieldType): boolean {
  return type !== "ip_range" && field !== "uuid" && !field.endsWith("_uuid") && !BOOKKEEPING.test(field);
}

/** The key ranges [lo, hi) of the postings of fields that no longer have any (table version 9). */
export function bookkeepingKeyRanges(): [string, string][] {
  return (Object.keys(INDEX_CODES) as IndexName[]).flatMap((index) =>
    Object.keys(INDEX_FIELDS[index].fields)
      .filter((f) => BOOKKEEPING.test(f))
      .map((f): [string, string] => [`${INDEX_CODES[index]}${f}${FIELD_END}`, `${INDEX_CODES[index]}${f}${PAIR_END}`]),
  );
}

/** Every key of an index lies within this range (inclusive). */
export function indexKeyRange(index: IndexName): [string, string] {
  return [INDEX_CODES[index], `${INDEX_CODES[index]}\u{10FFFF}`];
}

export function allKey(index: IndexName): string {
  return `${INDEX_CODES[index]}${FIELD_END}`;
}

export function termKey(index: IndexName, field: string, term: string): string {
  return `${INDEX_CODES[index]}${field}${FIELD_END}${capTerm(term)}`;
}

export function pairKey(index: IndexName, field: string, first: string, second: string): string {
  return `${INDEX_CODES[index]}${field}${PAIR_END}${capTerm(`${first} ${second}`)}`;
}

/** The key of the documents that have `field` (null: it has none, `PRESENCE_FIELDS`). */
export function presenceKey(index: IndexName, field: string): string | null {
  return PRESENCE_FIELDS[index].has(field) ? `${INDEX_CODES[index]}${field}${PRESENCE_END}` : null;
}

/** Every presence field of an index with the key ranges of the terms that make it present. */
export function presenceFields(index: IndexName): { key: string; ranges: [string, string][] }[] {
  const code = INDEX_CODES[index];
  return [...PRESENCE_FIELDS[index]].map((field) => ({
    key: presenceKey(index, field)!,
    ranges: presentThrough(index, field).map((f) => [`${code}${f}${FIELD_END}`, `${code}${f}${PAIR_END}`]),
  }));
}

/** The fields whose terms make `field` present: a text field has tokens or an exact form (`.keyword`). */
export const presentThrough = (index: IndexName, field: string): string[] => (INDEX_FIELDS[index].fields[field] === "text" ? [field, `${field}.keyword`] : [field]);

/**
 * A document's posting keys: its stored keys (`postingKeys`) and the presence keys they imply.
 * Derived, not stored, so that documents written before presence keys need no rewrite.
 */
export function withPresenceKeys(index: IndexName, keys: string[]): string[] {
  const fields = PRESENCE_FIELDS[index];
  if (fields.size === 0) return keys;
  const present = new Set<string>();
  for (const key of keys) {
    const end = key.indexOf(FIELD_END);
    // Term keys only (a pair key's field ends at PAIR_END, before any FIELD_END of a capped term).
    if (end <= 1 || key.lastIndexOf(PAIR_END, end) !== -1) continue;
    let field = key.slice(1, end);
    if (field.endsWith(".keyword") && INDEX_FIELDS[index].fields[field.slice(0, -8)] === "text") field = field.slice(0, -8);
    if (fields.has(field)) present.add(presenceKey(index, field)!);
  }
  return present.size === 0 ? keys : [...keys, ...present];
}

/** The key range [lo, hi) of every term of `field` that starts with `prefix`. */
export function prefixRange(index: IndexName, field: string, prefix: string): [string, string] {
  const lo = `${INDEX_CODES[index]}${field}${FIELD_END}${prefix}`;
  return [lo, `${lo}\u{10FFFF}`];
}

/** The index and field of a term or pair key; null for the match-all key and other strings. */
export function keyField(key: string): { index: IndexName; field: string } | null {
  const index = INDEX_BY_CODE.get(key.slice(0, 1));
  // Field names hold neither separator; terms may.
  const end = key.slice(1).search(/[\u0001\u0002]/u) + 1;
  return index === undefined || end <= 1 ? null : { index, field: key.slice(1, end) };
}

/** Whether a prefix or exact term of this length can be looked up exactly. */
export function termFits(term: string): boolean {
  return [...term].length <= MAX_TERM;
}

/** A field's name in the term dictionary. */
export function dictionaryField(index: IndexName, field: string): string {
  return `${INDEX_CODES[index]}${field}`;
}

/** A term in the dictionary: `length` in code points, MAX_TERM + 1 for a capped term. */
export interface DictionaryEntry {
  field: string;
  term: string;
  length: number;
}

/** The dictionary entry of a posting key: terms of keyword and text fields; null for other keys. */
export function dictionaryEntry(key: string): DictionaryEntry | null {
  const end = key.indexOf(FIELD_END);
  const index = INDEX_BY_CODE.get(key.slice(0, 1));
  // end 1: the match-all key; a pair key has PAIR_END before any FIELD_END.
  if (index === undefined || end <= 1 || key.lastIndexOf(PAIR_END, end) !== -1) return null;
  const name = key.slice(1, end);
  const type = INDEX_FIELDS[index].fields[name] ?? (name.endsWith(".keyword") ? "keyword" : undefined);
  if (type !== "keyword" && type !== "text") return null;
  const term = key.slice(end + 1);
  return { field: key.slice(0, end), term, length: term.endsWith(FIELD_END) ? MAX_TERM + 1 : codePoints(term) };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points in `s` (a string without surrogates has one per UTF-16 unit: no array to spread). */
const codePoints = (s: string) => (SURROGATE.test(s) ? [...s].length : s.length);

function capTerm(term: string): string {
  if (term.length <= MAX_TERM) return term;
  const cps = [...term];
  return cps.length <= MAX_TERM ? term : `${cps.slice(0, MAX_TERM).join("")}${FIELD_END}`;
}

const LONG_OFFSET = 1n << 63n;

/** A long (or epoch ms; an integer number within the long range) as a term whose code point order is numeric order. */
export function longTerm(n: bigint | number): string {
  // A non-negative integer number below 2^63 prints its digits (no exponent): no BigInt to make.
  if (typeof n === "number") return n >= 0 ? `p${String(n).padStart(19, "0")}` : longTerm(BigInt(String(n)));
  return n < 0n ? `n${(n + LONG_OFFSET).toString().padStart(19, "0")}` : `p${n.toString().padStart(19, "0")}`;
}

/** Canonical address (`./ip.ts` parseIp) -> term; ordered as addresses within a family. */
export function ipTerm(ip: string): string {
  if (!ip.includes(":")) return `4${ipv4Bytes(ip).map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  return `6${ipv6Bytes(ip).map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** A canonical CIDR block (`./ip.ts` parseCidr) -> its first and last address terms. */
export function cidrTerms(cidr: string): [string, string] {
  const [addr, bitsText] = cidr.split("/") as [string, string];
  const v4 = !addr.includes(":");
  const bytes = v4 ? ipv4Bytes(addr) : ipv6Bytes(addr);
  const bits = Number(bitsText);
  const first = bytes.map((b, i) => b & maskByte(bits - i * 8));
  const last = bytes.map((b, i) => (b & maskByte(bits - i * 8)) | (~maskByte(bits - i * 8) & 0xff));
  const hex = (bs: number[]) => `${v4 ? "4" : "6"}${bs.map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  return [hex(first), hex(last)];
}

function maskByte(bitsLeft: number): number {
  if (bitsLeft >= 8) return 0xff;
  if (bitsLeft <= 0) return 0;
  return (0xff << (8 - bitsLeft)) & 0xff;
}

function ipv4Bytes(ip: string): number[] {
  return ip.split(".").map(Number);
}

function ipv6Bytes(ip: string): number[] {
  let text = ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const words: number[] = [];
  if (tail) {
    const [a, b, c, d] = ipv4Bytes(tail[1]!) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes("::") ? (text.split("::") as [string, string]) : [text, null];
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((w) => parseInt(w, 16)));
  const h = parse(head);
  const r = rest === null ? [] : parse(rest);
  words.push(...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r);
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/**
 * The posting keys of a document from its `fields` (`./documents.ts`), deduplicated. `pairs` holds
 * each text field's values as token lists (adjacent pairs never span two values).
 */
export function postingKeys(index: IndexName, fields: Record<string, unknown[]>, tokenLists: Record<string, readonly (readonly string[])[]>): string[] {
  const keys = new Set<string>([allKey(index)]);
  for (const [key, values] of Object.entries(fields)) {
    const type = postedType(index, key);
    if (type === null) continue;
    for (const v of values) {
      const term = termOf(type, v);
      if (term !== null) keys.add(termKey(index, key, term));
    }
  }
  for (const [field, lists] of Object.entries(tokenLists)) {
    for (const tokens of lists) for (let i = 0; i + 1 < tokens.length; i++) keys.add(pairKey(index, field, tokens[i]!, tokens[i + 1]!));
  }
  return [...keys];
}

/** Per index, the type of each key of `fields` that has postings (null: none); found once per key. */
const POSTED_TYPES = new Map<IndexName, Map<string, FieldType | null>>();

function postedType(index: IndexName, key: string): FieldType | null {
  let types = POSTED_TYPES.get(index);
  if (types === undefined) POSTED_TYPES.set(index, (types = new Map()));
  let type = types.get(key);
  if (type === undefined) {
    const declared: FieldType | undefined = INDEX_FIELDS[index].fields[key] ?? (key.endsWith(".keyword") ? "keyword" : undefined);
    type = key === "@timestamp" || declared === undefined || !hasPostings(key, declared) ? null : declared;
    types.set(key, type);
  }
  return type;
}

function termOf(type: FieldType, v: unknown): string | null {
  switch (type) {
    case "keyword":
    case "text":
      return typeof v === "string" ? v : null;
    case "long":
    case "date":
      // The decimal text JSONB keeps (what the JSONB path compares), within the long range.
      return typeof v === "number" && Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? longTerm(v) : null;
    case "boolean":
      return typeof v === "boolean" ? String(v) : null;
    case "ip":
      return typeof v === "string" ? ipTerm(v) : null;
    case "ip_range":
      return null;
  }
}
