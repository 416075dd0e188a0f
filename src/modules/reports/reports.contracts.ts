import { z } from "zod";
import { unsafeTextReason } from "../../platform/unsafe-text.ts";
import { REPORT_DOC } from "./reports.docs.ts";

/**
 * The input contracts of event-report writes, in the service's vocabulary: the service checks its
 * input with them (every caller gets the same rules), REST derives its bodies (`wireContract`),
 * GraphQL checks its inputs (`contractInput`). What needs the stored rows (the event, a sharing
 * group that exists) stays in the service.
 */

/** Largest report content, in UTF-8 bytes (MISP keeps reports in a MEDIUMTEXT; 1 MiB is a long report). */
export const MAX_REPORT_CONTENT_BYTES = 1024 * 1024;
export const MAX_REPORT_NAME_LENGTH = 255;

const uuid = z.guid().transform((u) => u.toLowerCase());

/** Text PostgreSQL can store: no NUL, no unpaired surrogate. */
const storableText = (s: z.ZodString) => s.superRefine((v, ctx) => {
  const unsafe = unsafeTextReason(v);
  if (unsafe) ctx.addIssue({ code: "custom", message: unsafe });
});

const name = storableText(z.string().max(MAX_REPORT_NAME_LENGTH))
  .refine((v) => !/[\r\n]/.test(v), "must be one line")
  .describe(REPORT_DOC.nameInput);

const content = storableText(z.string())
  .refine((v) => Buffer.byteLength(v, "utf8") <= MAX_REPORT_CONTENT_BYTES, `must be at most ${MAX_REPORT_CONTENT_BYTES} bytes (UTF-8)`)
  .describe(REPORT_DOC.content);

export const reportFieldsContract = z
  .object({
    name: name.optional(),
    content: content.optional(),
    distribution: z.number().int().min(0).max(5).optional().describe(REPORT_DOC.distribution),
    sharingGroupId: z.number().int().min(1).max(2_147_483_647).nullable().optional().describe(REPORT_DOC.sharingGroupId),
  })
  .strict();

export const reportCreateContract = reportFieldsContract
  .extend({
    uuid: uuid.nullable().optional().describe("Its UUID; absent or null: a new one"),
  })
  .strict();

export const reportPatchContract = reportFieldsContract
  .extend({
    name: name.refine((v) => v.trim() !== "", "must not be empty").optional(),
    deleted: z.boolean().optional().describe("True soft-deletes it, false restores it"),
  })
  .strict();

export type ReportCreate = z.output<typeof reportCreateContract>;
export type ReportPatch = z.output<typeof reportPatchContract>;
