import { builder, caller } from "../../graphql/builder.ts";
import { EventType } from "../events/events.graphql.ts";
import { requestMemo } from "../../graphql/request-batch.ts";
import type { RetentionBadge, RetentionStatus } from "./retention-policy.ts";
import { RETENTION_BADGE_DOC as B, RETENTION_BADGE_STATUS_DOC, RETENTION_DOC as R, RETENTION_PREVIEW_DOC as P, RETENTION_TYPES_DOC } from "./retention.docs.ts";

import { enumValues } from "../../graphql/enums.ts";

const BadgeStatus = builder.enumType("RetentionBadgeStatus", {
  description: "Where an event stands with retention",
  values: enumValues(RETENTION_BADGE_STATUS_DOC),
});
const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

const Badge = builder.objectRef<RetentionBadge>("RetentionBadge").implement({
  description: RETENTION_TYPES_DOC.RetentionBadge,
  fields: (t) => ({
    status: t.field({ type: BadgeStatus, description: B.status, resolve: (b) => b.status }),
    expiresInDays: t.int({ description: rest(B.expiresInDays, "expires_in_days"), resolve: (b) => b.expires_in_days }),
  }),
});

const Status = builder.objectRef<RetentionStatus>("RetentionStatus").implement({
  description: RETENTION_TYPES_DOC.RetentionStatus,
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled", { description: R.enabled }),
    periodDays: t.int({ description: rest(R.periodDays, "period_days"), resolve: (s) => s.period_days }),
    warningDays: t.int({ description: rest(R.warningDays, "warning_days"), resolve: (s) => s.warning_days }),
    exemptTags: t.stringList({ description: rest(R.exemptTags, "exempt_tags"), resolve: (s) => s.exempt_tags }),
  }),
});

const Preview = builder.objectRef<{ count: number; period_days: number }>("RetentionPreview").implement({
  description: RETENTION_TYPES_DOC.RetentionPreview,
  fields: (t) => ({
    count: t.exposeInt("count", { description: P.count }),
    periodDays: t.int({ description: rest(P.periodDays, "period_days"), resolve: (p) => p.period_days }),
  }),
});

builder.prismaObjectField(EventType, "retention", (t) =>
  t.field({
    type: Badge,
    nullable: true,
    description: B.badge,
    select: { timestamp: true, tags: { select: { tag: { select: { name: true } } } } },
    resolve: async (e, _a, ctx) => {
      const badgeOf = await requestMemo(ctx, "retention.badgeRule", () => ctx.services.retention.badgeRule());
      return badgeOf(Number(e.timestamp), e.tags.map((l) => l.tag.name));
    },
  }),
);

builder.queryFields((t) => ({
  retentionStatus: t.field({ type: Status, description: "The retention configuration: enabled, period, warning days and exempt tags", resolve: (_r, _a, ctx) => ctx.services.retention.status(caller(ctx)) }),
  retentionPreview: t.field({
    type: Preview,
    description: "How many events the next enforcement would delete with periodDays and the configured exempt tags: events whose last change (timestamp) is older",
    args: { periodDays: t.arg.int({ description: "Days, 1 to 36,500 (default the configured period) (REST period_days)" }) },
    resolve: (_r, a, ctx) => ctx.services.retention.preview(caller(ctx), a.periodDays ?? undefined),
  }),
}));
