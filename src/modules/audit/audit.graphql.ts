import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { AuditRecord } from "./audit.service.ts";
import { checkPageSize } from "../../platform/paging.ts";

const AuditEntry = builder.objectRef<AuditRecord>("AuditEntry").implement({
  fields: (t) => ({
    id: t.int({ resolve: (a) => Number(a.id) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    actorUserId: t.exposeInt("actorUserId", { nullable: true }),
    actorEmail: t.exposeString("actorEmail", { nullable: true }),
    actorType: t.exposeString("actorType"),
    actorCredentialId: t.exposeInt("actorCredentialId", { nullable: true }),
    resourceType: t.exposeString("resourceType", { nullable: true }),
    resourceId: t.exposeInt("resourceId", { nullable: true }),
    action: t.exposeString("action"),
    ipAddress: t.exposeString("ipAddress", { nullable: true }),
    userAgent: t.exposeString("userAgent", { nullable: true }),
    metadata: t.expose("metadata", { type: "JSON", nullable: true }),
  }),
});

const AuditPage = builder
  .objectRef<{ items: AuditRecord[]; total: number; page: number; size: number; pages: number }>("AuditPage")
  .implement({
    fields: (t) => ({
      items: t.field({ type: [AuditEntry], resolve: (p) => p.items }),
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      size: t.exposeInt("size"),
      pages: t.exposeInt("pages"),
    }),
  });

const ActorType = builder.enumType("AuditActorType", { values: ["user", "api_key", "system"] as const });

builder.queryFields((t) => ({
  auditLogs: t.field({
    extensions: cost.page("size"),
    type: AuditPage,
    args: {
      page: t.arg.int({ defaultValue: 1 }),
      size: t.arg.int({ defaultValue: 50 }),
      action: t.arg.string(),
      actorUserId: t.arg.int(),
      actorType: t.arg({ type: ActorType }),
      resourceType: t.arg.string(),
      resourceId: t.arg.int(),
      dateFrom: t.arg({ type: "DateTime" }),
      dateTo: t.arg({ type: "DateTime" }),
    },
    resolve: (_r, a, ctx) => {
      const { page, size } = checkPageSize(a, 50);
      return ctx.services.audit.list(
        caller(ctx),
        {
          action: a.action ?? undefined,
          actorUserId: a.actorUserId ?? undefined,
          actorType: a.actorType ?? undefined,
          resourceType: a.resourceType ?? undefined,
          resourceId: a.resourceId ?? undefined,
          dateFrom: a.dateFrom ?? undefined,
          dateTo: a.dateTo ?? undefined,
        },
        { page, size },
      );
    },
  }),
}));
