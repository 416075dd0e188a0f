import { z } from "zod";
import { defineRoute } from "../route.ts";
import { intId, isoDateTime, pageQueryFields } from "../schemas.ts";
import { AuditLogPageSchema, auditOut } from "../serializers.ts";

export const auditLogRoutes = [
  defineRoute({
    method: "GET", path: "/admin/audit-logs/", operationId: "listAuditLogs", summary: "The audit log, newest first (paginated; action is a prefix match)", tag: "audit",
    scopes: ["audit_logs:admin"], status: 200, response: AuditLogPageSchema,
    query: z
      .object({
        ...pageQueryFields,
        action: z.string().max(100).optional(),
        actor_user_id: intId.optional(),
        actor_type: z.enum(["user", "api_key", "system"]).optional(),
        resource_type: z.string().max(100).optional(),
        resource_id: intId.optional(),
        date_from: isoDateTime.optional(),
        date_to: isoDateTime.optional(),
      })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.audit.list(
        principal,
        {
          action: query.action,
          actorUserId: query.actor_user_id,
          actorType: query.actor_type,
          resourceType: query.resource_type,
          resourceId: query.resource_id,
          dateFrom: query.date_from,
          dateTo: query.date_to,
        },
        { page: query.page, size: query.size },
      );
      return { ...page, items: page.items.map(auditOut) };
    },
  }),
];
