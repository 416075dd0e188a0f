import { z } from "zod";
import { defineRoute } from "../route.ts";
import { queryIntOptional } from "../schemas.ts";
import { RetentionPreviewSchema, RetentionStatusSchema, retentionStatusOut } from "../serializers/retention.ts";

export const retentionRoutes = [
  defineRoute({
    method: "GET", path: "/events/retention/status", operationId: "getRetentionStatus", tag: "events",
    summary: "The retention configuration: enabled, period_days, warning_days, exempt_tags",
    scopes: ["events:read"], status: 200, response: RetentionStatusSchema,
    handler: async ({ principal, services }) => retentionStatusOut(await services.retention.status(principal)),
  }),
  defineRoute({
    method: "GET", path: "/events/retention/preview", operationId: "previewRetention", tag: "events",
    summary:
      "How many events the next enforcement would delete with period_days (1..36500; default the configured period) and the configured exempt tags: events whose last change (timestamp) is older, across all organisations",
    scopes: ["settings:read"], status: 200, response: RetentionPreviewSchema,
    query: z.object({ period_days: queryIntOptional(1, 36_500) }).strict(),
    handler: ({ principal, query, services }) => services.retention.preview(principal, query.period_days),
  }),
];
