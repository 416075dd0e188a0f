import { z } from "zod";

/** Upper bound on each follow list; larger lists are refused with 422 (documented in the README). */
export const MAX_FOLLOWS_PER_LIST = 10_000;
/** Any namespace's stored JSON is capped at this size. */
export const MAX_USER_SETTING_BYTES = 1_048_576;

const uuidList = z
  .array(z.uuid().transform((u) => u.toLowerCase()))
  .max(MAX_FOLLOWS_PER_LIST)
  .transform((l) => [...new Set(l)]);

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
      saved_searches: z.array(z.string().max(10_000)).default([]),
    })
    .strict(),
} as const;

export const USER_NAMESPACE_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const freeFormSetting = z.record(z.string(), z.unknown());

export function isKnownUserNamespace(ns: string): ns is keyof typeof USER_SETTINGS {
  return Object.hasOwn(USER_SETTINGS, ns);
}
