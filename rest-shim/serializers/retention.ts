import { z } from "zod";
import type { RetentionStatus } from "../../src/modules/retention/index.ts";
import { named } from "../contract.ts";

export const RetentionStatusSchema = named(
  "RetentionStatus",
  z.object({
    enabled: z.boolean().describe("Master switch: nothing is deleted while false"),
    period_days: z.int().min(1).describe("Events whose last change is older than this many days are deleted"),
    warning_days: z.int().min(0).describe("Events within this many days of expiry show a warning badge"),
    exempt_tags: z.array(z.string()).describe("Events carrying any of these tags (exact names) are never deleted"),
  }),
  "The event retention configuration (spec 2.3)",
);

export function retentionStatusOut(s: RetentionStatus): z.output<typeof RetentionStatusSchema> {
  return { enabled: s.enabled, period_days: s.period_days, warning_days: s.warning_days, exempt_tags: s.exempt_tags };
}

export const RetentionPreviewSchema = named(
  "RetentionPreview",
  z.object({
    count: z.int().min(0).describe("Events the next enforcement would delete with this period, across all organisations"),
    period_days: z.int().min(1).describe("The period counted with: the one asked, else the configured one"),
  }),
  "How many events a retention period would delete (spec 4.5)",
);
