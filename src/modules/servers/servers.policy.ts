import { hasScope, isAdmin, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may do what with sync servers. Every entry point (REST, GraphQL, the server_pull and
 * server_push tasks when scheduled and when each run starts) asks here.
 *
 * - A server belongs to its organisation: its members holding the scope read, change, test, pull
 *   and push it; administrators any. Others get 404, never the server.
 * - The API key is write-only: no answer carries it, encrypted or not.
 * - A pull writes as the organisation's sync import (events:create and events:sync: Orgc kept);
 *   a push reads as the pusher (events:read), so it sends only what they may read.
 */
export const PULL_SCOPES = ["servers:pull", "events:create", "events:sync"] as const;
export const PUSH_SCOPES = ["servers:push", "events:read"] as const;

export type ServerAction = "read" | "update" | "delete" | "test";

const ownsOrAdministers = (p: Principal, orgId: number) => isAdmin(p) || p.orgId === orgId;

export function readableServerWhere(p: Principal): Prisma.ServerWhereInput {
  return isAdmin(p) ? {} : { orgId: p.orgId ?? -1 };
}

export function canAccessServer(p: Principal, server: { orgId: number }, action: ServerAction): boolean {
  return hasScope(p, `servers:${action}`) && ownsOrAdministers(p, server.orgId);
}

export function canPull(p: Principal, server: { orgId: number }): boolean {
  return PULL_SCOPES.every((s) => hasScope(p, s)) && ownsOrAdministers(p, server.orgId);
}

export function canPush(p: Principal, server: { orgId: number }): boolean {
  return PUSH_SCOPES.every((s) => hasScope(p, s)) && ownsOrAdministers(p, server.orgId);
}

/** The principal a pull writes as: the puller acting for the server's organisation. */
export function actingFor(p: Principal, server: { orgId: number }): Principal {
  return p.orgId === server.orgId ? p : { ...p, orgId: server.orgId };
}
