import { hasScope, isAdmin, type Principal } from "../../auth/principal.ts";
import type { Feed, Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may do what with feeds and feed uploads. Every entry point (REST, GraphQL, the fetch_feed
 * task when it is scheduled and when each run starts) asks here.
 *
 * - A feed belongs to its organisation: its members holding the scope read, change, delete and
 *   fetch it; administrators any feed. Others get 404, never the feed.
 * - A feed's headers (credentials) are write-only: nobody reads their values through any answer.
 * - An upload belongs to the uploader's organisation: only that organisation previews it, and
 *   only feeds of that organisation read it.
 * - What a fetch writes belongs to the feed's organisation, whoever fetches it.
 */
type Owned = Pick<Feed, "orgId">;

export type FeedAction = "read" | "update" | "delete";

export const FETCH_SCOPES = ["feeds:fetch", "events:create"] as const;

/** The value every answer shows instead of a header's value; sent back in a PATCH, it keeps the stored value. */
export const REDACTED = "********";

const ownsOrAdministers = (p: Principal, orgId: number | null) => isAdmin(p) || (orgId !== null && p.orgId === orgId);

/** The feeds `p` may read, as a query's where (canAccessFeed's organisation rule; the scope is checked by the caller). */
export function readableFeedWhere(p: Principal): Prisma.FeedWhereInput {
  return isAdmin(p) ? {} : { orgId: p.orgId ?? -1 };
}

export function canAccessFeed(p: Principal, feed: Owned, action: FeedAction): boolean {
  return hasScope(p, `feeds:${action}`) && ownsOrAdministers(p, feed.orgId);
}

export function canFetchFeed(p: Principal, feed: Owned): boolean {
  return FETCH_SCOPES.every((s) => hasScope(p, s)) && ownsOrAdministers(p, feed.orgId);
}

/** Previews read an upload of the caller's organisation (administrators: of any). */
export function canPreviewUpload(p: Principal, upload: { orgId: number | null }): boolean {
  return upload.orgId !== null && ownsOrAdministers(p, upload.orgId);
}

/** A local feed reads an upload of its own organisation only, whoever sets it up. */
export function canFeedFrom(p: Principal, upload: { orgId: number | null }, feed: Owned): boolean {
  return upload.orgId === feed.orgId && ownsOrAdministers(p, feed.orgId);
}

/** The principal a fetch writes as: the fetcher, acting for the feed's organisation (an administrator may fetch any feed). */
export function ingestingPrincipal(p: Principal, feed: Owned): Principal {
  return p.orgId === feed.orgId ? p : { ...p, orgId: feed.orgId };
}

/** A feed as answers show it: header names with their values redacted. */
export function presentFeed(feed: Feed): Feed {
  return { ...feed, headers: redactHeaders(feed.headers) };
}

export function redactHeaders(headers: unknown): Record<string, string> | null {
  if (headers === null || typeof headers !== "object" || Array.isArray(headers)) return null;
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

/**
 * The headers a PATCH leaves stored: the new set, where a redacted value keeps the stored value of
 * that header (matched case-insensitively, as HTTP names are). Returns the name of a redacted
 * header with no stored value, which the caller refuses.
 */
export function mergeHeaders(stored: unknown, next: Record<string, string> | null): { headers: Record<string, string> | null; unknown: string | null } {
  if (next === null) return { headers: null, unknown: null };
  const old = new Map(Object.entries(stored !== null && typeof stored === "object" && !Array.isArray(stored) ? (stored as Record<string, string>) : {}).map(([k, v]) => [k.toLowerCase(), v]));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(next)) {
    if (value !== REDACTED) out[name] = value;
    else if (old.has(name.toLowerCase())) out[name] = old.get(name.toLowerCase())!;
    else return { headers: null, unknown: name };
  }
  return { headers: out, unknown: null };
}
