import { errors } from "../platform/errors.ts";
import { ADMIN_SCOPE, effectiveScopes, grantedByAll } from "./scopes.ts";

export type ActorType = "user" | "api_key" | "system";

/** Who is calling, as every service sees it. Built per request; never cached across requests. */
export interface Principal {
  actorType: ActorType;
  userId: number | null;
  email: string | null;
  orgId: number | null;
  roleId: number | null;
  /** API key id for key-authenticated calls. */
  credentialId: number | null;
  /** Access-token id for JWT-authenticated calls (null for keys: logout needs a token). */
  tokenId: string | null;
  tokenExpiresAt: Date | null;
  /** Every list must grant a scope (role ∩ token scope ∩ key scopes). */
  grantSets: readonly (readonly string[])[];
  /** The sharing groups the caller's organisation owns or belongs to (distribution 4 reads through them). */
  sharingGroupIds: readonly number[];
  ip: string | null;
  userAgent: string | null;
}

export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

export function hasScope(p: Principal, scope: string): boolean {
  return grantedByAll(p.grantSets, scope);
}

export function isAdmin(p: Principal): boolean {
  return hasScope(p, ADMIN_SCOPE);
}

/** Throws 401 for an anonymous caller and 403 when any of the scopes is missing. */
export function authorize(p: Principal | null, ...scopes: string[]): asserts p is Principal {
  if (!p) throw errors.unauthenticated("Not authenticated", scopes);
  const missing = scopes.filter((s) => !hasScope(p, s));
  if (missing.length) throw errors.insufficientScope(missing);
}

export function requireUser(p: Principal | null): asserts p is Principal & { userId: number } {
  if (!p || p.userId === null) throw errors.unauthenticated("Not authenticated");
}

export function scopesOf(p: Principal): string[] {
  return effectiveScopes(p.grantSets);
}

export function systemPrincipal(): Principal {
  return {
    actorType: "system",
    userId: null,
    email: null,
    orgId: null,
    roleId: null,
    credentialId: null,
    tokenId: null,
    tokenExpiresAt: null,
    grantSets: [[ADMIN_SCOPE]],
    sharingGroupIds: [],
    ip: null,
    userAgent: null,
  };
}
