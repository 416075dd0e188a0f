import { errors } from "./errors.ts";

export interface SkipLimit {
  skip: number;
  limit: number;
}

export const MAX_LIMIT = 1000;

/** The bounds the REST shim's skip/limit schema enforces, for callers that are not REST (GraphQL). */
export function checkSkipLimit(a: { skip?: number | null; limit?: number | null }, where = "args"): SkipLimit {
  const skip = a.skip ?? 0;
  const limit = a.limit ?? 100;
  if (!Number.isInteger(skip) || skip < 0) throw errors.invalidField([where, "skip"], "must be a non-negative integer", skip);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw errors.invalidField([where, "limit"], `must be an integer from 1 to ${MAX_LIMIT}`, limit);
  }
  return { skip, limit };
}
