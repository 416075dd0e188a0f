import { z } from "zod";
import { RETENTION_DOC as R, RETENTION_PREVIEW_DOC as P, RETENTION_TYPES_DOC, type RetentionStatus } from "../../src/modules/retention/index.ts";
import { named } from "../contract.ts";

export const RetentionStatusSchema = named(
  "RetentionStatus",
  z.object({
    enabled: z.boolean().describe(R.enabled),
    period_days: z.int().min(1).describe(R.periodDays),
    warning_days: z.int().min(0).describe(R.warningDays),
    exempt_tags: z.array(z.string()).describe(R.exemptTags),
  }),
  RETENTION_TYPES_DOC.RetentionStatus,
);

export function retentionStatusOut(s: RetentionStatus): z.output<typeof RetentionStatusSchema> {
  return { enabled: s.enabled, period_days: s.period_days, warning_days: s.warning_days, exempt_tags: s.exempt_tags };
}

export const RetentionPreviewSchema = named(
  "RetentionPreview",
  z.object({
    count: z.int().min(0).describe(P.count),
    period_days: z.int().min(1).describe(P.periodDays),
  }),
  RETENTION_TYPES_DOC.RetentionPreview,
);
