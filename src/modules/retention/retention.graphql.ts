import { builder, caller } from "../../graphql/builder.ts";
import { EventType } from "../events/events.graphql.ts";
import type { RetentionBadge, RetentionStatus } from "./retention-policy.ts";

import { enumValues } from "../../graphql/enums.ts";

const BadgeStatus = builder.enumType("RetentionBadgeStatus", {
  description: "Where an event stands with retention",
  values: enumValues({ expired: "The next enforcement deletes it", expiring: "Within warning_days of expiry" }),
});
const PERIOD_DAYS = "Events whose last change is older than this many days are deleted (REST period_days)";

const Badge = builder.objectRef<RetentionBadge>("RetentionBadge").implement({
  description: "expired: the next enforcement deletes the event; expiring: within warning_days of it",
  fields: (t) => ({
    status: t.field({ type: BadgeStatus, description: "Expired or expiring", resolve: (b) => b.status }),
    expiresInDays: t.int({ description: "Days until it expires, 0 or less once expired (REST expires_in_days)", resolve: (b) => b.expires_in_days }),
  }),
});

const Status = builder.objectRef<RetentionStatus>("RetentionStatus").implement({
  description: "The retention configuration (runtime setting retention)",
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled", { description: "Old events are deleted when true" }),
    periodDays: t.int({ description: PERIOD_DAYS, resolve: (s) => s.period_days }),
    warningDays: t.int({ description: "Events this many days from expiry are marked expiring (REST warning_days)", resolve: (s) => s.warning_days }),
    exemptTags: t.stringList({ description: "Events with any of these tags are never deleted (REST exempt_tags)", resolve: (s) => s.exempt_tags }),
  }),
});

const Preview = builder.objectRef<{ count: number; period_days: number }>("RetentionPreview").implement({
  description: "What the next enforcement would delete",
  fields: (t) => ({
    count: t.exposeInt("count", { description: "Events it would delete, across all organisations" }),
    periodDays: t.int({ description: "The period used (REST period_days)", resolve: (p) => p.period_days }),
  }),
});

builder.objectField(EventType, "retention", (t) =>
  t.field({ type: Badge, nullable: true, description: "The retention badge; null when retention is disabled, the event is exempt or far from expiry", resolve: (e) => e.retention ?? null }),
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
