import { z } from "zod";
import type { Organisation, Role } from "../src/generated/prisma/client.ts";
import type { UserRecord } from "../src/modules/users/index.ts";
import type { ApiKeyRecord } from "../src/modules/api-keys/index.ts";
import type { AuditRecord } from "../src/modules/audit/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "./contract.ts";

export const ScopeCatalogueSchema = named("ScopeCatalogue", z.record(z.string(), z.string()), "Every scope, with a one-line description");

export const RoleSchema = named(
  "Role",
  z.object({
    id: z.int(),
    name: z.string(),
    scopes: z.array(z.string()).describe("Scopes the role grants (`*` for every one)"),
    default_role: z.boolean().describe("Given to new users when none is named"),
    created: timestamp,
    modified: timestamp,
  }),
);

export const OrganisationSchema = named(
  "Organisation",
  z.object({
    id: z.int(),
    uuid: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.string().nullable(),
    nationality: z.string().nullable(),
    sector: z.string().nullable(),
    contacts: z.string().nullable(),
    local: z.boolean().describe("An organisation of this instance (not only known from shared data)"),
    restricted_to_domain: z.array(z.string()).describe("E-mail domains its users must have; empty: any"),
    landing_page: z.string().nullable(),
    created_by: z.int().nullable().describe("The user who created it"),
    date_created: timestamp,
    date_modified: timestamp,
  }),
);

export const UserSchema = named(
  "User",
  z.object({
    id: z.int(),
    email: z.string(),
    org_id: z.int(),
    role_id: z.int(),
    disabled: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    role: RoleSchema,
    organisation: OrganisationSchema,
  }),
  "A user account (never its password)",
);

export const ApiKeySchema = named(
  "ApiKey",
  z.object({
    id: z.int(),
    user_id: z.int(),
    name: z.string(),
    comment: z.string().nullable(),
    scopes: z.array(z.string()).describe("The key's scopes; effective rights are these within the owner's current role"),
    expires_at: nullableTimestamp,
    disabled: z.boolean().describe("Disabled by its owner"),
    admin_disabled: z.boolean().describe("Locked by an administrator: its owner cannot enable it"),
    created_at: timestamp,
    last_used_at: nullableTimestamp,
  }),
  "An API key (the secret is shown once, when it is created)",
);

export const CreatedApiKeySchema = named(
  "CreatedApiKey",
  ApiKeySchema.extend({ token: z.string().describe("The secret: shown only in this answer, never again") }),
);

export const AuditLogSchema = named(
  "AuditLogEntry",
  z.object({
    id: z.int(),
    created_at: timestamp,
    actor_user_id: z.int().nullable(),
    actor_email: z.string().nullable(),
    actor_type: z.string().describe("user, api_key or system"),
    actor_credential_id: z.int().nullable(),
    resource_type: z.string().nullable(),
    resource_id: z.int().nullable(),
    action: z.string().describe("What happened, as `<area>.<verb>` (for example `events.created`)"),
    ip_address: z.string().nullable(),
    user_agent: z.string().nullable(),
    metadata: z.unknown().describe("Details of the action: a JSON value whose shape depends on the action"),
  }),
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
