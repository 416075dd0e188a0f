import type { Organisation, Role } from "../src/generated/prisma/client.ts";
import type { UserRecord } from "../src/modules/users/users.service.ts";
import type { ApiKeyRecord } from "../src/modules/api-keys/api-keys.service.ts";
import type { AuditRecord } from "../src/modules/audit/audit.service.ts";

/** Domain records to the snake_case wire format of the peer (timestamps as ISO 8601 with Z). */
export function roleOut(r: Role) {
  return {
    id: r.id,
    name: r.name,
    scopes: r.scopes,
    default_role: r.defaultRole,
    created: r.created.toISOString(),
    modified: r.modified.toISOString(),
  };
}

export function organisationOut(o: Organisation) {
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

export function userOut(u: UserRecord) {
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

export function apiKeyOut(k: ApiKeyRecord) {
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

export function auditOut(a: AuditRecord) {
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
