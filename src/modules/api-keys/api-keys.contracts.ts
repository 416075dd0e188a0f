import { z } from "zod";
import { API_KEY_DOC } from "./api-keys.docs.ts";

/** The input contract of creating an API key, in the service's vocabulary (REST derives its body, GraphQL checks its input). */
export const createApiKeyContract = z
  .object({
    name: z.string().trim().min(1).max(255).describe("A name to recognise it by, 1 to 255 characters"),
    comment: z.string().max(2000).nullable().optional().describe("What it is for, at most 2000 characters"),
    scopes: z.array(z.string().min(1).max(100)).max(200).describe("Its scopes (at most 200); rights are these within the owner's current role"),
    expiresAt: z.date().nullable().optional().describe("When it stops working; null or absent: never"),
  })
  .strict();

/** The owner's switch (PATCH /api-keys/{key_id}, setApiKeyDisabled). */
export const apiKeyToggleContract = z
  .object({ disabled: z.boolean().describe(`${API_KEY_DOC.disabled}. True disables the key, false enables it (refused while an administrator holds it)`) })
  .strict();

/** The administrator's hold (PATCH /admin/api-keys/{key_id}, whose wire calls it `disabled`; adminSetApiKeyLocked). */
export const apiKeyLockContract = z
  .object({ locked: z.boolean().describe(`${API_KEY_DOC.adminDisabled}. True locks the key, false releases the hold (the owner's own switch stays as it was)`) })
  .strict();

/** Listing every user's keys: optionally one owner's. */
export const adminApiKeyListContract = z
  .object({ userId: z.number().int().min(1, "must be a positive integer").max(2_147_483_647).optional().describe("Only this user's keys") })
  .strict();

export type CreateApiKeyInput = z.output<typeof createApiKeyContract>;
export type ApiKeyToggle = z.input<typeof apiKeyToggleContract>;
export type ApiKeyLock = z.input<typeof apiKeyLockContract>;
export type AdminApiKeyList = z.input<typeof adminApiKeyListContract>;
