/**
 * Explore's query logic, free of React: the time range and the `@timestamp` clause it adds, the
 * effective query both indices run, field-name completion, recent and saved searches.
 */

/** Relative presets (spec 4.7: 15 minutes to 1 year), as Elasticsearch date math after `now-`. */
export const TIME_PRESETS = [
  { value: "15m", label: "Last 15 minutes" },
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "1y", label: "Last year" },
] as const;

export type TimePreset = (typeof TIME_PRESETS)[number]["value"];

/** The user setting's shape (`explore.saved_searches[].time_range`): a preset, all time, or absolute bounds in ISO 8601 UTC. */
export type TimeRange = { preset: TimePreset | "all" } | { from: string | null; to: string | null };

export const ALL_TIME: TimeRange = { preset: "all" };

const PRESET_MS: Record<TimePreset, number> = {
  "15m": 15 * 60_000,
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
  "90d": 90 * 86_400_000,
  "1y": 365 * 86_400_000,
};

export function isAbsolute(range: TimeRange): range is { from: string | null; to: string | null } {
  return !("preset" in range);
}

/** `@timestamp:[now-24h TO now]`, `@timestamp:[2024-01-01T00:00:00.000Z TO *]`, or null for all time. */
export function timeClause(range: TimeRange): string | null {
  if (!isAbsolute(range)) return range.preset === "all" ? null : `@timestamp:[now-${range.preset} TO now]`;
  if (!range.from && !range.to) return null;
  return `@timestamp:[${range.from ?? "*"} TO ${range.to ?? "*"}]`;
}

/**
 * The query both indices run: the user's query in parentheses (its OR stays inside) ANDed with the
 * time clause. The parentheses could pair with a stray bracket of the user's, so the user's query is
 * also checked alone (the page's parse check); that check's positions are in the user's text.
 */
export function effectiveQuery(query: string, range: TimeRange): string {
  const clause = timeClause(range);
  if (!query.trim()) return clause ?? "";
  return clause ? `(${query}) AND ${clause}` : query;
}

/** The instants the range covers as ISO strings (null: open), evaluated now for presets (the histogram's bounds). */
export function rangeBounds(range: TimeRange, now = Date.now()): { from: string | null; to: string | null } {
  if (isAbsolute(range)) return { from: range.from, to: range.to };
  if (range.preset === "all") return { from: null, to: null };
  return { from: new Date(now - PRESET_MS[range.preset]).toISOString(), to: new Date(now).toISOString() };
}

/** What a range reads as, for lists of searches. */
export function describeRange(range: TimeRange): string {
  if (!isAbsolute(range)) return range.preset === "all" ? "All time" : (TIME_PRESETS.find((p) => p.value === range.preset)?.label ?? range.preset);
  const day = (iso: string) => iso.replace("T", " ").replace(/:\d\d\.\d{3}Z$/, " UTC");
  if (range.from && range.to) return `${day(range.from)} to ${day(range.to)}`;
  if (range.from) return `From ${day(range.from)}`;
  if (range.to) return `Until ${day(range.to)}`;
  return "All time";
}

/** A `datetime-local` input's value (local wall-clock time) as ISO 8601 UTC; null when empty or not a time. */
export function localInputToIso(value: string): string | null {
  if (!value) return null;
  const t = new Date(value).getTime();
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** ISO 8601 as a `datetime-local` input's value, in the browser's time zone. */
export function isoToLocalInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// ---- field-name completion -------------------------------------------------------------------

export interface SearchField {
  index: string;
  name: string;
  type: string;
}

export interface FieldSuggestion {
  name: string;
  /** "text (events, attributes)" */
  detail: string;
}

/** Characters that end a field name being typed (operators, brackets, quotes, whitespace). */
const TOKEN_BREAK = /[\s()[\]{}"'!+\-^~:,<>=\\/]/;

/** The word being typed at `cursor`: where it starts and its text (empty when the cursor follows a break). */
export function tokenAt(text: string, cursor: number): { start: number; word: string } {
  let start = cursor;
  // Field names hold letters, digits, `_`, `.` and `@`; `-` breaks because `-field:x` negates.
  while (start > 0 && !TOKEN_BREAK.test(text[start - 1]!)) start--;
  return { start, word: text.slice(start, cursor) };
}

/** Whether the cursor is inside a phrase (an odd number of unescaped quotes before it). */
function insidePhrase(text: string, cursor: number): boolean {
  let open = false;
  for (let i = 0; i < cursor; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') open = !open;
  }
  return open;
}

/** Fields whose name starts with the word at the cursor (then those containing it), at most `limit`. */
export function suggestFields(fields: readonly SearchField[], text: string, cursor: number, limit = 12): FieldSuggestion[] {
  const { start, word } = tokenAt(text, cursor);
  if (!word || insidePhrase(text, cursor) || text[start - 1] === ":") return [];
  const byName = new Map<string, { types: Set<string>; indices: string[] }>();
  for (const f of fields) {
    const e = byName.get(f.name) ?? { types: new Set<string>(), indices: [] };
    e.types.add(f.type);
    e.indices.push(f.index);
    byName.set(f.name, e);
  }
  const w = word.toLowerCase();
  const names = [...byName.keys()].sort();
  const ranked = [...names.filter((n) => n.toLowerCase().startsWith(w)), ...names.filter((n) => !n.toLowerCase().startsWith(w) && n.toLowerCase().includes(w))];
  return ranked
    .filter((n) => n.toLowerCase() !== w)
    .slice(0, limit)
    .map((name) => {
      const e = byName.get(name)!;
      return { name, detail: `${[...e.types].join(", ")} (${e.indices.join(", ")})` };
    });
}

/** The text with the word at the cursor replaced by `field:`; the new cursor follows the colon. */
export function applySuggestion(text: string, cursor: number, field: string): { text: string; cursor: number } {
  const { start } = tokenAt(text, cursor);
  const inserted = `${field}:`;
  return { text: text.slice(0, start) + inserted + text.slice(cursor), cursor: start + inserted.length };
}

// ---- recent searches (browser storage) ------------------------------------------------------

export const RECENT_KEY = "workbench.explore.recent";
export const MAX_RECENT = 10;

export interface SearchEntry {
  query: string;
  time_range: TimeRange;
}

const PRESET_VALUES = new Set<string>([...TIME_PRESETS.map((p) => p.value), "all"]);
const isIsoOrNull = (v: unknown): v is string | null => v === null || (typeof v === "string" && !Number.isNaN(Date.parse(v)));

/** A stored time range, checked (storage and settings are read back from outside this code). */
export function readTimeRange(v: unknown): TimeRange | null {
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  if (typeof r.preset === "string") return PRESET_VALUES.has(r.preset) ? { preset: r.preset as TimePreset | "all" } : null;
  if (isIsoOrNull(r.from) && isIsoOrNull(r.to)) return { from: r.from, to: r.to };
  return null;
}

const sameEntry = (a: SearchEntry, b: SearchEntry) => a.query === b.query && JSON.stringify(a.time_range) === JSON.stringify(b.time_range);

/** The list with `entry` first, its older copy removed, at most 10. */
export function withRecent(list: readonly SearchEntry[], entry: SearchEntry): SearchEntry[] {
  return [entry, ...list.filter((e) => !sameEntry(e, entry))].slice(0, MAX_RECENT);
}

export function loadRecent(storage: Storage): SearchEntry[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(RECENT_KEY) ?? "[]");
    if (!Array.isArray(parsed)) return [];
    return parsed
      .map((e: unknown) => {
        const o = (e ?? {}) as Record<string, unknown>;
        const range = readTimeRange(o.time_range);
        return typeof o.query === "string" && range ? { query: o.query, time_range: range } : null;
      })
      .filter((e): e is SearchEntry => e !== null)
      .slice(0, MAX_RECENT);
  } catch {
    return [];
  }
}

export function saveRecent(storage: Storage, list: readonly SearchEntry[]): void {
  try {
    storage.setItem(RECENT_KEY, JSON.stringify(list.slice(0, MAX_RECENT)));
  } catch {
    // Storage full or disabled: recent searches are a convenience, the search itself went through.
  }
}

// ---- saved searches (user setting explore.saved_searches) -----------------------------------

export interface SavedSearch extends SearchEntry {
  name: string;
}

/** The setting's entries: the UI's objects, and the peer's bare query strings (named by their query, all time). */
export function readSavedSearches(value: unknown): SavedSearch[] {
  const list = (value as { saved_searches?: unknown } | null)?.saved_searches;
  if (!Array.isArray(list)) return [];
  return list
    .map((e: unknown): SavedSearch | null => {
      if (typeof e === "string") return { name: e, query: e, time_range: ALL_TIME };
      const o = (e ?? {}) as Record<string, unknown>;
      const range = readTimeRange(o.time_range);
      return typeof o.name === "string" && typeof o.query === "string" && range ? { name: o.name, query: o.query, time_range: range } : null;
    })
    .filter((e): e is SavedSearch => e !== null);
}
