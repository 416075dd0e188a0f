import { z } from "zod";
import { storedText } from "../../platform/contract-fields.ts";

/** Upper bound on each follow list; larger lists are refused with 422 (documented in the README). */
export const MAX_FOLLOWS_PER_LIST = 10_000;
/** Any namespace's stored JSON is capped at this size. */
export const MAX_USER_SETTING_BYTES = 1_048_576;

const uuidList = z
  .array(z.uuid().transform((u) => u.toLowerCase()))
  .max(MAX_FOLLOWS_PER_LIST)
  .transform((l) => [...new Set(l)]);

/** Explore's relative time presets (spec 4.7: 15 minutes to 1 year), "all" for no time clause. */
export const EXPLORE_TIME_PRESETS = ["15m", "1h", "24h", "7d", "30d", "90d", "1y", "all"] as const;

/** A saved search's time range: a preset, or absolute bounds (ISO 8601 in UTC; null is an open side). */
const savedTimeRange = z.union([
  z.object({ preset: z.enum(EXPLORE_TIME_PRESETS) }).strict(),
  z.object({ from: z.iso.datetime().nullable(), to: z.iso.datetime().nullable() }).strict(),
]);

/**
 * A saved Explore search: the peer stores a query string alone (still accepted, read as a search
 * named by its query); the UI saves a name, the query and its time range.
 */
const savedSearch = z.union([
  storedText(10_000),
  z.object({ name: storedText(200).min(1), query: storedText(10_000), time_range: savedTimeRange }).strict(),
]);

/** Known namespaces are validated; others (UI preferences) are free-form objects within the size cap. */
export const USER_SETTINGS = {
  notifications: z
    .object({
      follow: z
        .object({
          events: uuidList.default([]),
          attributes: uuidList.default([]),
          objects: uuidList.default([]),
          organisations: uuidList.default([]),
        })
        .strict()
        .default({ events: [], attributes: [], objects: [], organisations: [] }),
      email_notifications: z.boolean().default(true),
    })
    .strict(),
  explore: z
    .object({
      saved_searches: z.array(savedSearch).default([]),
    })
    .strict(),
} as const;

export const USER_NAMESPACE_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const freeFormSetting = z.record(z.string(), z.unknown());

export function isKnownUserNamespace(ns: string): ns is keyof typeof USER_SETTINGS {
  return Object.hasOwn(USER_SETTINGS, ns);
}
