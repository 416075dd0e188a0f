/**
 * The wire formats of the Explore export, written page by page in chunks of about 32 K characters
 * (memory stays that of one page whatever the export's size).
 *
 * - `json`: one JSON array of hits, as the peer's export (`{_index, _id, _score, _source, sort}`,
 *   exactly the objects of the search routes' `results`), one hit per line.
 * - `ndjson`: the same hit objects, one per line (not only `_source`: a line keeps its `_id` and
 *   `sort`, and `jq .` over either format gives the same objects).
 * - `csv`: RFC 4180 (comma, CRLF line ends, a header row; a cell holding `"`, `,`, CR or LF is
 *   quoted, quotes doubled) with the peer's columns (peer notes 3.20). `tags` holds the tag names
 *   joined by `|` (as the peer's exports); booleans are `true` / `false`; null or missing values are empty; an object
 *   value is its JSON. Against CSV (formula) injection, a cell made from text that starts with
 *   `=`, `+`, `-`, `@`, TAB or CR gets a leading single quote (`'=cmd|...`), which spreadsheets
 *   show as text; cells made from numbers and booleans are written as they are (`-1` stays a number).
 */
import { chunked } from "../../platform/text-chunks.ts";
import type { SearchHit } from "../../search/search-index.ts";
import type { ExportFormat } from "./explore-export-input.ts";
import type { ExportTarget } from "./explore-export.ts";

export const CSV_COLUMNS: Record<ExportTarget, readonly string[]> = {
  attributes: ["uuid", "event_uuid", "object_uuid", "object_relation", "category", "type", "value", "to_ids", "comment", "timestamp", "first_seen", "last_seen", "tags"],
  events: ["uuid", "info", "date", "threat_level", "analysis", "published", "timestamp", "org_id", "orgc_id", "tags"],
};

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: "application/json; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8; header=present",
};

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell from text: protected against formula injection, quoted when RFC 4180 requires it. */
export function csvText(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV cell from a document value. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "string") return csvText(value);
  return csvText(JSON.stringify(value));
}

/** The `tags` cell: the tag names joined by `|`, as the peer's exports (a tag name may hold commas). */
function tagsCell(tags: unknown): string {
  if (!Array.isArray(tags)) return csvCell(tags);
  const names = tags.map((t) => (t !== null && typeof t === "object" && typeof (t as { name?: unknown }).name === "string" ? (t as { name: string }).name : JSON.stringify(t)));
  return csvText(names.join("|"));
}

export function csvHeader(target: ExportTarget): string {
  return `${CSV_COLUMNS[target].join(",")}\r\n`;
}

export function csvRecord(target: ExportTarget, source: Record<string, unknown>): string {
  return `${CSV_COLUMNS[target].map((c) => (c === "tags" ? tagsCell(source[c]) : csvCell(source[c]))).join(",")}\r\n`;
}

/**
 * The export as text chunks of about `CHUNK_CHARS` (`../../platform/text-chunks.ts`; a chunk never
 * spans two pages). `hitOut` is the search routes' hit object.
 */
export async function* encodeExport(
  format: ExportFormat,
  target: ExportTarget,
  pages: AsyncIterable<SearchHit[]>,
  hitOut: (hit: SearchHit) => unknown,
): AsyncGenerator<string> {
  if (format === "csv") {
    yield csvHeader(target);
    for await (const hits of pages) yield* chunked(hits, (h) => csvRecord(target, h.source));
    return;
  }
  if (format === "ndjson") {
    for await (const hits of pages) yield* chunked(hits, (h) => `${JSON.stringify(hitOut(h))}\n`);
    return;
  }
  let separator = "\n";
  yield "[";
  for await (const hits of pages) {
    yield* chunked(hits, (h) => {
      const text = `${separator}${JSON.stringify(hitOut(h))}`;
      separator = ",\n";
      return text;
    });
  }
  yield separator === "\n" ? "]\n" : "\n]\n";
}
