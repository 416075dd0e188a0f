import { errors } from "./errors.ts";
import { MAX_PAGE_SIZE } from "./pagination.ts";

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

/** The bounds of the REST shim's page/size (P1) paging, for callers that are not REST (GraphQL). */
export function checkPageSize(a: { page?: number | null; size?: number | null }, defaultSize: number, where = "args"): { page: number; size: number } {
  const page = a.page ?? 1;
  const size = a.size ?? defaultSize;
  if (!Number.isInteger(page) || page < 1) throw errors.invalidField([where, "page"], "must be at least 1", page);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw errors.invalidField([where, "size"], `must be from 1 to ${MAX_PAGE_SIZE}`, size);
  return { page, size };
}
