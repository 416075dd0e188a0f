import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { AuditRecord } from "./audit.service.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";

const AUDIT_DOC = {
  action: "What was done, <resource>.<verb> (for example user.created, auth.login_failed)",
  actorUserId: "Id of the user who acted; null for the system (REST actor_user_id)",
  resourceType: "The kind of resource acted on (for example user, event, hunt); null if none (REST resource_type)",
  resourceId: "Numeric id of the resource acted on; null if none or not numeric (REST resource_id)",
} as const;

const AuditEntry = builder.objectRef<AuditRecord>("AuditEntry").implement({
  description: "One audit log record",
  fields: (t) => ({
    id: t.int({ description: "Numeric id of the record", resolve: (a) => Number(a.id) }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it happened (REST created_at)" }),
    actorUserId: t.exposeInt("actorUserId", { nullable: true, description: AUDIT_DOC.actorUserId }),
    actorEmail: t.exposeString("actorEmail", { nullable: true, description: "That user's e-mail address at the time (REST actor_email)" }),
    actorType: t.exposeString("actorType", { description: "The kind of actor: user, api_key or system (REST actor_type)" }),
    actorCredentialId: t.exposeInt("actorCredentialId", { nullable: true, description: "The API key used; null otherwise (REST actor_credential_id)" }),
    resourceType: t.exposeString("resourceType", { nullable: true, description: AUDIT_DOC.resourceType }),
    resourceId: t.exposeInt("resourceId", { nullable: true, description: AUDIT_DOC.resourceId }),
    action: t.exposeString("action", { description: AUDIT_DOC.action }),
    ipAddress: t.exposeString("ipAddress", { nullable: true, description: "The client's IP address (REST ip_address)" }),
    userAgent: t.exposeString("userAgent", { nullable: true, description: "The client's User-Agent header (REST user_agent)" }),
    metadata: t.expose("metadata", { type: "JSON", nullable: true, description: "Details of the action: JSON because each action records its own" }),
  }),
});

const AuditPage = pageType("AuditPage", AuditEntry, "audit log records");

const ActorType = builder.enumType("AuditActorType", {
  description: "Who acted (REST actor_type)",
  values: enumValues({ user: "A user with a login token", api_key: "A user with an API key", system: "The service itself (scheduled and background work)" }),
});

builder.queryFields((t) => ({
  auditLogs: t.field({
    extensions: cost.page("size"),
    type: AuditPage,
    description: "The audit log, newest first (GET /admin/audit-logs/)",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 50, description: PAGE_DOC.size(50) }),
      action: t.arg.string({ description: "Only actions starting with this (a prefix match)" }),
      actorUserId: t.arg.int({ description: "Only this user's actions" }),
      actorType: t.arg({ type: ActorType, description: "Only actions of this kind of actor" }),
      resourceType: t.arg.string({ description: "Only actions on this kind of resource" }),
      resourceId: t.arg.int({ description: "Only actions on the resource with this id" }),
      dateFrom: t.arg({ type: "DateTime", description: "Only records at or after this time (REST date_from)" }),
      dateTo: t.arg({ type: "DateTime", description: "Only records at or before this time (REST date_to)" }),
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
