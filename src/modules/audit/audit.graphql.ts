import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { AuditRecord } from "./audit.service.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { AUDIT_DOC, AUDIT_TYPES_DOC } from "./audit.docs.ts";

/** GraphQL names the REST field where it differs. */
const rest = (doc: string, name: string) => `${doc} (REST ${name})`;


const AuditEntry = builder.objectRef<AuditRecord>("AuditEntry").implement({
  description: AUDIT_TYPES_DOC.AuditEntry,
  fields: (t) => ({
    id: t.int({ description: AUDIT_DOC.id, resolve: (a) => Number(a.id) }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: rest(AUDIT_DOC.createdAt, "created_at") }),
    actorUserId: t.exposeInt("actorUserId", { nullable: true, description: rest(AUDIT_DOC.actorUserId, "actor_user_id") }),
    actorEmail: t.exposeString("actorEmail", { nullable: true, description: rest(AUDIT_DOC.actorEmail, "actor_email") }),
    actorType: t.exposeString("actorType", { description: rest(AUDIT_DOC.actorType, "actor_type") }),
    actorCredentialId: t.exposeInt("actorCredentialId", { nullable: true, description: rest(AUDIT_DOC.actorCredentialId, "actor_credential_id") }),
    resourceType: t.exposeString("resourceType", { nullable: true, description: rest(AUDIT_DOC.resourceType, "resource_type") }),
    resourceId: t.exposeInt("resourceId", { nullable: true, description: rest(AUDIT_DOC.resourceId, "resource_id") }),
    action: t.exposeString("action", { description: AUDIT_DOC.action }),
    ipAddress: t.exposeString("ipAddress", { nullable: true, description: rest(AUDIT_DOC.ipAddress, "ip_address") }),
    userAgent: t.exposeString("userAgent", { nullable: true, description: rest(AUDIT_DOC.userAgent, "user_agent") }),
    metadata: t.expose("metadata", { type: "JSON", nullable: true, description: AUDIT_DOC.metadata }),
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
