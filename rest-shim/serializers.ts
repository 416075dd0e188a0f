import { z } from "zod";
import type { Organisation, Role } from "../src/generated/prisma/client.ts";
import { USER_DOC, USER_TYPES_DOC, type UserRecord } from "../src/modules/users/index.ts";
import { API_KEY_DOC, API_KEY_TYPES_DOC, type ApiKeyRecord } from "../src/modules/api-keys/index.ts";
import { AUDIT_DOC, AUDIT_TYPES_DOC, type AuditRecord } from "../src/modules/audit/index.ts";
import { ROLE_DOC, ROLE_TYPES_DOC, SCOPE_DOC } from "../src/modules/roles/index.ts";
import { ORG_DOC, ORG_TYPES_DOC } from "../src/modules/organisations/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "./contract.ts";

export const ScopeCatalogueSchema = named("ScopeCatalogue", z.record(z.string(), z.string()), SCOPE_DOC.catalogue);

export const RoleSchema = named(
  "Role",
  z.object({
    id: z.int().describe(ROLE_DOC.id),
    name: z.string().describe(ROLE_DOC.name),
    scopes: z.array(z.string()).describe(ROLE_DOC.scopes),
    default_role: z.boolean().describe(ROLE_DOC.defaultRole),
    created: timestamp,
    modified: timestamp,
  }),
  ROLE_TYPES_DOC.Role,
);

export const OrganisationSchema = named(
  "Organisation",
  z.object({
    id: z.int().describe(ORG_DOC.id),
    uuid: z.uuid().describe(ORG_DOC.uuid),
    name: z.string().describe(ORG_DOC.name),
    description: z.string().nullable().describe(ORG_DOC.description),
    type: z.string().nullable().describe(ORG_DOC.type),
    nationality: z.string().nullable().describe(ORG_DOC.nationality),
    sector: z.string().nullable().describe(ORG_DOC.sector),
    contacts: z.string().nullable().describe(ORG_DOC.contacts),
    local: z.boolean().describe(ORG_DOC.local),
    restricted_to_domain: z.array(z.string()).describe(ORG_DOC.restrictedToDomain),
    landing_page: z.string().nullable().describe(ORG_DOC.landingPage),
    created_by: z.int().nullable().describe(ORG_DOC.createdBy),
    date_created: timestamp,
    date_modified: timestamp,
  }),
  ORG_TYPES_DOC.Organisation,
);

export const UserSchema = named(
  "User",
  z.object({
    id: z.int().describe(USER_DOC.id),
    email: z.string().describe(USER_DOC.email),
    org_id: z.int().describe(USER_DOC.orgId),
    role_id: z.int().describe(USER_DOC.roleId),
    disabled: z.boolean().describe(USER_DOC.disabled),
    created_at: timestamp,
    updated_at: timestamp,
    role: RoleSchema,
    organisation: OrganisationSchema,
  }),
  USER_TYPES_DOC.User,
);

export const ApiKeySchema = named(
  "ApiKey",
  z.object({
    id: z.int().describe(API_KEY_DOC.id),
    user_id: z.int().describe(API_KEY_DOC.userId),
    name: z.string().describe(API_KEY_DOC.name),
    comment: z.string().nullable().describe(API_KEY_DOC.comment),
    scopes: z.array(z.string()).describe(API_KEY_DOC.scopes),
    expires_at: nullableTimestamp.describe(API_KEY_DOC.expiresAt),
    disabled: z.boolean().describe(API_KEY_DOC.disabled),
    admin_disabled: z.boolean().describe(API_KEY_DOC.adminDisabled),
    created_at: timestamp,
    last_used_at: nullableTimestamp.describe(API_KEY_DOC.lastUsedAt),
  }),
  API_KEY_TYPES_DOC.ApiKey,
);

export const CreatedApiKeySchema = named(
  "CreatedApiKey",
  ApiKeySchema.extend({ token: z.string().describe(API_KEY_DOC.token) }),
  API_KEY_TYPES_DOC.CreatedApiKey,
);

export const AuditLogSchema = named(
  "AuditLogEntry",
  z.object({
    id: z.int().describe(AUDIT_DOC.id),
    created_at: timestamp.describe(AUDIT_DOC.createdAt),
    actor_user_id: z.int().nullable().describe(AUDIT_DOC.actorUserId),
    actor_email: z.string().nullable().describe(AUDIT_DOC.actorEmail),
    actor_type: z.string().describe(AUDIT_DOC.actorType),
    actor_credential_id: z.int().nullable().describe(AUDIT_DOC.actorCredentialId),
    resource_type: z.string().nullable().describe(AUDIT_DOC.resourceType),
    resource_id: z.int().nullable().describe(AUDIT_DOC.resourceId),
    action: z.string().describe(AUDIT_DOC.action),
    ip_address: z.string().nullable().describe(AUDIT_DOC.ipAddress),
    user_agent: z.string().nullable().describe(AUDIT_DOC.userAgent),
    metadata: z.unknown().describe(AUDIT_DOC.metadata),
  }),
  AUDIT_TYPES_DOC.AuditEntry,
);

export const AuditLogPageSchema = pageSchema("AuditLogPage", AuditLogSchema);

/** Domain records to the snake_case wire format of the peer (timestamps as ISO 8601 with Z). */
export function roleOut(r: Role): z.output<typeof RoleSchema> {
  return {
    id: r.id,
    name: r.name,
    scopes: r.scopes,
    default_role: r.defaultRole,
    created: r.created.toISOString(),
    modified: r.modified.toISOString(),
  };
}

export function organisationOut(o: Organisation): z.output<typeof OrganisationSchema> {
  return {
    id: o.id,
    uuid: o.uuid,
    name: o.name,
    description: o.description,
    type: o.type,
    nationality: o.nationality,
    sector: o.sector,
    contacts: o.contacts,
    local: o.local,
    restricted_to_domain: o.restrictedToDomain,
    landing_page: o.landingPage,
    created_by: o.createdBy,
    date_created: o.dateCreated.toISOString(),
    date_modified: o.dateModified.toISOString(),
  };
}

export function userOut(u: UserRecord): z.output<typeof UserSchema> {
  return {
    id: u.id,
    email: u.email,
    org_id: u.orgId,
    role_id: u.roleId,
    disabled: u.disabled,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
    role: roleOut(u.role),
    organisation: organisationOut(u.organisation),
  };
}

export function apiKeyOut(k: ApiKeyRecord): z.output<typeof ApiKeySchema> {
  return {
    id: k.id,
    user_id: k.userId,
    name: k.name,
    comment: k.comment,
    scopes: k.scopes,
    expires_at: k.expiresAt?.toISOString() ?? null,
    disabled: k.disabled,
    admin_disabled: k.adminDisabled,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

export function auditOut(a: AuditRecord): z.output<typeof AuditLogSchema> {
  return {
    id: Number(a.id),
    created_at: a.createdAt.toISOString(),
    actor_user_id: a.actorUserId,
    actor_email: a.actorEmail,
    actor_type: a.actorType,
    actor_credential_id: a.actorCredentialId,
    resource_type: a.resourceType,
    resource_id: a.resourceId,
    action: a.action,
    ip_address: a.ipAddress,
    user_agent: a.userAgent,
    metadata: a.metadata,
  };
}
