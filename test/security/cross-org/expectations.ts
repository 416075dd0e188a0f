import type { Actor, BActor, CrossOrgWorld, Validator } from "./world.ts";

/**
 * What B's callers get from a request aimed at A's resources:
 * - hidden: 404 for every B caller, or 403 where the caller lacks the declared scope (checked
 *   before any lookup, so it says nothing about A's resource);
 * - denied: 403 or 404 (or a status listed in `also`, e.g. 422 naming the argument); nothing changes;
 * - filtered: success (403 without the scope), and the answer holds none of A's private strings;
 * - own: about the caller only (their user, keys, settings, notifications): success, nothing of A's;
 * - shared: instance-wide reads (tags, galaxies, scopes, organisations, roles): success, nothing
 *   private of A's.
 */
export type BClass = "hidden" | "denied" | "filtered" | "own" | "shared";

export interface CaseContext {
  actor: Actor;
  w: CrossOrgWorld;
  /** True for the site administrator's (or A's owner's) validating request. */
  validating: boolean;
}

export interface Expectation {
  b: BClass;
  /** The success status of filtered/own/shared requests (B callers holding the scopes). */
  ok?: number;
  /** Further refusals a denied request may answer (e.g. 409, 422). */
  also?: number[];
  /** Fixed statuses for some B callers, with the reason in the case. */
  override?: Partial<Record<BActor, number>>;
  /** Who proves the request valid, and with which status. */
  validator: { as?: Validator; status: number };
  /**
   * Private strings the validator's answer must contain: proof that the same request finds A's
   * data when allowed, so an empty answer to B is filtering, not an empty query.
   */
  validatorFinds?(w: CrossOrgWorld): string[];
  /** A further check of a B caller's successful answer: what is wrong with it, or null. */
  bCheck?(body: any, ctx: CaseContext): string | null | Promise<string | null>;
  /** The validator's request changes instance-wide state other validations read: it runs after them. */
  validateLast?: boolean;
}

/** The statuses a B caller may answer, given the scopes it holds. */
export function allowedStatuses(e: Expectation, actor: BActor, holdsScopes: boolean): number[] {
  const fixed = e.override?.[actor];
  if (fixed !== undefined) return [fixed];
  switch (e.b) {
    case "hidden":
      return holdsScopes ? [404] : [403];
    case "denied":
      return holdsScopes ? [403, 404, ...(e.also ?? [])] : [403];
    default:
      return holdsScopes ? [e.ok ?? 200] : [403];
  }
}

export const expectsBody = (e: Expectation) => e.b === "filtered" || e.b === "own" || e.b === "shared";
