import { builder, caller } from "../../graphql/builder.ts";
import { EventType } from "../events/events.graphql.ts";
import type { RetentionBadge, RetentionStatus } from "./retention-policy.ts";

const BadgeStatus = builder.enumType("RetentionBadgeStatus", { values: ["expired", "expiring"] as const });

const Badge = builder.objectRef<RetentionBadge>("RetentionBadge").implement({
  description: "expired: the next enforcement deletes the event; expiring: within warning_days of it",
  fields: (t) => ({
    status: t.field({ type: BadgeStatus, resolve: (b) => b.status }),
    expiresInDays: t.int({ resolve: (b) => b.expires_in_days }),
  }),
});

const Status = builder.objectRef<RetentionStatus>("RetentionStatus").implement({
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    periodDays: t.int({ resolve: (s) => s.period_days }),
    warningDays: t.int({ resolve: (s) => s.warning_days }),
    exemptTags: t.stringList({ resolve: (s) => s.exempt_tags }),
  }),
});

const Preview = builder.objectRef<{ count: number; period_days: number }>("RetentionPreview").implement({
  fields: (t) => ({ count: t.exposeInt("count"), periodDays: t.int({ resolve: (p) => p.period_days }) }),
});

builder.objectField(EventType, "retention", (t) =>
  t.field({ type: Badge, nullable: true, description: "The retention badge; null when retention is disabled, the event is exempt or far from expiry", resolve: (e) => e.retention ?? null }),
);

builder.queryFields((t) => ({
  retentionStatus: t.field({ type: Status, resolve: (_r, _a, ctx) => ctx.services.retention.status(caller(ctx)) }),
  retentionPreview: t.field({
    type: Preview,
    args: { periodDays: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.retention.preview(caller(ctx), a.periodDays ?? undefined),
  }),
}));
