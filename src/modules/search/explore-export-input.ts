/**
 * The parameters of the Explore export (GET /events/export, GET /attributes/export, and the URL
 * GraphQL's `exploreExportUrl` builds): one zod schema, so that both refuse the same input (422).
 *
 * `from` / `to` bound `@timestamp`, both inclusive. Accepted: epoch seconds (digits), a date
 * (`2024-01-31`: `from` at its first millisecond, `to` at its last, UTC), or a date and time
 * (`2024-01-31T10:00`, seconds and fractions optional; `Z` or `±hh:mm`, none meaning UTC as the
 * peer's naive timestamps). Years 0000-9999; fractions beyond milliseconds are cut.
 */
import { z } from "zod";

export const EXPORT_FORMATS = ["json", "ndjson", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** 9999-12-31T23:59:59Z: the last second a four-digit year can write. */
const MAX_EPOCH_SECONDS = 253_402_300_799;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;
const END_OF_DAY_MS = 86_400_000 - 1;

/** The instant a bound names, or null when it is not one of the accepted forms (or not a real date). */
export function parseBound(text: string, end: boolean): Date | null {
  if (/^\d{1,12}$/.test(text)) {
    const seconds = Number(text);
    return seconds <= MAX_EPOCH_SECONDS ? new Date(seconds * 1000) : null;
  }
  const date = DATE.exec(text);
  if (date) {
    const start = calendar(date[1]!, date[2]!, date[3]!, "00", "00", "00");
    return start === null ? null : new Date(start + (end ? END_OF_DAY_MS : 0));
  }
  const dt = DATE_TIME.exec(text);
  if (!dt) return null;
  const [, y, mo, d, h, mi, s = "00", frac = "", zone = "Z"] = dt;
  const local = calendar(y!, mo!, d!, h!, mi!, s);
  if (local === null) return null;
  const ms = Number(frac.slice(0, 3).padEnd(3, "0"));
  const offsetMinutes = zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (Math.abs(offsetMinutes) > 18 * 60) return null;
  return new Date(local + ms - offsetMinutes * 60_000);
}

/** Epoch ms of a UTC wall-clock time, or null when a part is out of its range (Feb 30, 24:00). */
function calendar(y: string, mo: string, d: string, h: string, mi: string, s: string): number | null {
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}.000Z`;
  const t = Date.parse(iso);
  // Date.parse rolls some impossible dates over; the round trip catches them.
  return Number.isNaN(t) || new Date(t).toISOString() !== iso ? null : t;
}

/** A `from` (end false) or `to` (end true) bound as text, parsed to its instant (422 otherwise). */
export const timeBound = (end: boolean) =>
  z
    .string()
    .max(64)
    .transform((text, ctx) => {
      const instant = parseBound(text, end);
      if (instant === null) {
        ctx.addIssue({ code: "custom", message: "must be epoch seconds, a date (YYYY-MM-DD) or an ISO 8601 date and time" });
        return z.NEVER;
      }
      return instant;
    });

export const exploreExportQuery = z
  .object({
    query: z.string(),
    format: z.enum(EXPORT_FORMATS).default("json"),
    from: timeBound(false).optional(),
    to: timeBound(true).optional(),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from.getTime() <= q.to.getTime(), { message: "from must not be after to", path: ["from"] });

export type ExploreExportQuery = z.output<typeof exploreExportQuery>;
