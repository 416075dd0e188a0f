import { SearchQueryError } from "../search-index.ts";

export function pgCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

/**
 * A failed search statement as the error the routes map (timeout 503, invalid 400, unavailable 503),
 * or the error itself; `broken`: the connection must not go back to the pool.
 */
export function searchFailureOf(err: unknown, timeoutMs: number): { error: unknown; broken: boolean } {
  const code = pgCode(err);
  const message = err instanceof Error ? err.message : String(err);
  // The regex library reports a cancel that lands inside it as an invalid-regex error.
  if (code === "57014" || (code === "2201B" && /cancel/i.test(message))) {
    return { error: new SearchQueryError(`Search timed out after ${timeoutMs} ms and was cancelled`, "timeout"), broken: false };
  }
  if (code === "2201B" || code === "54001" || code === "54000") {
    return { error: new SearchQueryError(`Query rejected by PostgreSQL: ${message}`, "invalid"), broken: false };
  }
  if (code?.startsWith("08") || code === "57P01" || code === "53300") {
    return { error: new SearchQueryError(`PostgreSQL is unavailable: ${message}`, "unavailable"), broken: true };
  }
  return { error: err, broken: false };
}
