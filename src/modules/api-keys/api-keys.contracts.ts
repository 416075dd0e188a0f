import { z } from "zod";

/** The input contract of creating an API key, in the service's vocabulary (REST derives its body, GraphQL checks its input). */
export const createApiKeyContract = z
  .object({
    name: z.string().trim().min(1).max(255).describe("A name to recognise it by, 1 to 255 characters"),
    comment: z.string().max(2000).nullable().optional().describe("What it is for, at most 2000 characters"),
    scopes: z.array(z.string().min(1).max(100)).max(200).describe("Its scopes (at most 200); rights are these within the owner's current role"),
    expiresAt: z.date().nullable().optional().describe("When it stops working; null or absent: never"),
  })
  .strict();

export type CreateApiKeyInput = z.output<typeof createApiKeyContract>;
