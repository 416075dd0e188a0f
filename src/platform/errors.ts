import type { output, ZodError, ZodType } from "zod";

/**
 * The one error catalogue. Every error the API returns is built here, so its `code` is stable
 * and documented; the wire body is always `{"detail": <message or list>, "code": <code>}`.
 */
export const ERROR_CODES = {
  bad_request: 400,
  invalid_query: 400,
  query_too_complex: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  unauthenticated: 401,
  invalid_grant: 401,
  invalid_credentials: 401,
  token_revoked: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  search_timeout: 503,
  search_unavailable: 503,
  upstream_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One entry of a 422 `detail` list, in the peer's (pydantic's) shape so its clients can read it. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string | ValidationIssue[],
    readonly headers: Record<string, string> = {},
    /** Further keys of the body, e.g. where a query failed to parse. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
    this.status = ERROR_CODES[code];
  }

  toBody(): { detail: string | ValidationIssue[]; code: ErrorCode } & Record<string, unknown> {
    return { ...this.extra, detail: this.detail, code: this.code };
  }
}

/**
 * A 422 raised by a service about its own input: each issue's `loc` is a field path in the service's
 * vocabulary (`["expiresAt"]`, `["filters", 0, "value"]`), without a location. The adapter that
 * called the service says where the caller sent it (`located`): REST `["body", "expires_at"]`,
 * GraphQL `["args", "expiresAt"]`, MCP `["arguments", "expiresAt"]`.
 */
export class InputError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super("validation_error", issues);
  }

  /** The same error about a part of a larger input, at `prefix` in it. */
  within(prefix: (string | number)[]): InputError {
    return new InputError(this.issues.map((i) => ({ ...i, loc: [...prefix, ...i.loc] })));
  }

  /** The same error with every path mapped into the caller's terms. */
  located(where: (field: (string | number)[]) => (string | number)[]): AppError {
    return new AppError("validation_error", this.issues.map((i) => ({ ...i, loc: where(i.loc) })));
  }
}

/**
 * `expiresAt` -> `expires_at`: the REST shim's names for the services' fields. Only camelCase
 * identifiers change: a data key in a path (a header name, an index) stays as sent.
 */
export const snakeCase = (field: string | number): string | number =>
  typeof field === "string" && /^[a-z][a-zA-Z0-9]*$/.test(field) ? field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : field;

const bearerChallenge = (scopes?: readonly string[]) =>
  scopes && scopes.length ? `Bearer scope="${scopes.join(" ")}"` : "Bearer";

export const errors = {
  /** `extra`: further keys of the body, e.g. the values that were refused. */
  badRequest: (detail: string, extra: Record<string, unknown> = {}) => new AppError("bad_request", detail, {}, extra),
  invalidScope: (detail: string) => new AppError("invalid_scope", detail),
  invalidGrant: (detail = "Invalid or expired refresh token") => new AppError("invalid_grant", detail),
  unsupportedGrantType: (grant: string) =>
    new AppError("unsupported_grant_type", `Unsupported grant_type: ${grant.slice(0, 64)}`),
  unauthenticated: (detail = "Could not validate credentials", scopes?: readonly string[]) =>
    new AppError("unauthenticated", detail, { "WWW-Authenticate": bearerChallenge(scopes) }),
  invalidCredentials: () =>
    new AppError("invalid_credentials", "Incorrect username or password", { "WWW-Authenticate": "Bearer" }),
  tokenRevoked: () => new AppError("token_revoked", "Token has been revoked", { "WWW-Authenticate": "Bearer" }),
  insufficientScope: (required: readonly string[]) =>
    new AppError("insufficient_scope", `Not enough permissions: requires ${required.join(", ")}`, {
      "WWW-Authenticate": `${bearerChallenge(required)}, error="insufficient_scope"`,
    }),
  forbidden: (detail: string) => new AppError("forbidden", detail),
  notFound: (what: string) => new AppError("not_found", `${what} not found`),
  routeNotFound: () => new AppError("not_found", "Not Found"),
  methodNotAllowed: (allow: readonly string[]) =>
    new AppError("method_not_allowed", "Method Not Allowed", { Allow: allow.join(", ") }),
  conflict: (detail: string) => new AppError("conflict", detail),
  payloadTooLarge: (detail = "Request body is too large") => new AppError("payload_too_large", detail),
  unsupportedMediaType: (detail: string) => new AppError("unsupported_media_type", detail),
  uriTooLong: (detail: string) => new AppError("uri_too_long", detail),
  /** The request line and headers together exceed the server's limit (Node's HTTP parser refuses them). */
  headersTooLarge: () => new AppError("headers_too_large", "The request's URL and headers are too large"),
  requestTimeout: () => new AppError("request_timeout", "The request was not received in time"),
  validation: (issues: ValidationIssue[]) => new AppError("validation_error", issues),
  /** A service's input value is invalid; `field` is its path in the service's vocabulary (see InputError). */
  invalidInput: (field: (string | number)[], msg: string, input?: unknown) =>
    new InputError([{ type: "value_error", loc: field, msg, ...(input === undefined ? {} : { input }) }]),
  invalidField: (loc: (string | number)[], msg: string, input?: unknown) =>
    new AppError("validation_error", [{ type: "value_error", loc, msg, input }]),
  unavailable: (detail: string) => new AppError("service_unavailable", detail),
  /** A Lucene query the parser rejects: its message, the reason and the 1-based position. */
  invalidQuery: (detail: string, reason: string, position: { offset: number; line: number; column: number }) =>
    new AppError("invalid_query", detail, {}, { reason, position }),
  /** A GraphQL operation over a depth, alias, field or cost limit: refused before anything runs. */
  queryTooComplex: (detail: string, measured: Record<string, number>) => new AppError("query_too_complex", detail, {}, { measured }),
  searchTimeout: (detail: string) => new AppError("search_timeout", detail),
  searchUnavailable: (detail: string) => new AppError("search_unavailable", detail),
  /** An external service (the vulnerability database, the rules service) failed or did not answer. */
  upstreamUnavailable: (detail: string) => new AppError("upstream_unavailable", detail),
  /** 429: try again after `retryAfterSeconds` (also in the body, for GraphQL callers). */
  rateLimited: (detail: string, retryAfterSeconds: number) =>
    new AppError("rate_limited", detail, { "Retry-After": String(retryAfterSeconds) }, { retry_after: retryAfterSeconds }),
  internal: () => new AppError("internal_error", "Internal Server Error"),
};

/** The SQLSTATE of a database error: pg's, or the one Prisma's driver adapter carries; null for anything else. */
function sqlState(err: unknown): string | null {
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  const code = e?.meta?.driverAdapterError?.cause?.originalCode ?? e?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

const DATA_EXCEPTIONS: Record<string, string> = {
  "22001": "A value is too long for its field",
  "22003": "A number is out of range for its field",
  "22007": "A date or time is not valid",
  "22008": "A date or time is out of range",
  "22021": "A value holds a character that cannot be stored",
  "22P05": "A value holds a character that cannot be stored",
};

/**
 * The net under validation and locking: a value the database refuses as data (a number past its
 * column's range, a character it cannot store, a date out of range) came with the request, so it
 * answers 400; a row a unique index refuses (a uuid or name another request wrote meanwhile)
 * conflicts, 409. Never 500. Validation and the writers' locks should see to both first, naming the
 * place; the caller logs the error, since reaching this means they missed a case.
 */
export function fromDatabaseRefusal(err: unknown): AppError | null {
  const state = sqlState(err);
  if (state === "23505" || state === "P2002") return errors.conflict("A record with one of these unique values exists already");
  const detail = DATA_EXCEPTIONS[state ?? ""];
  return detail ? errors.badRequest(detail) : null;
}

/** Turns a zod failure into the 422 list; `where` is the part of the request ("body", "query", "path"). */
/** zod's issues as 422 entries under `base`: one per unknown field, located at it, as pydantic (and so the peer) reports them. */
function issuesOf(err: ZodError, base: (string | number)[]): ValidationIssue[] {
  return err.issues.slice(0, 100).flatMap((i): ValidationIssue[] => {
    const path = [...base, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    if (i.code === "unrecognized_keys") {
      return i.keys.map((key) => ({ type: "extra_forbidden", loc: [...path, key], msg: "Extra inputs are not permitted" }));
    }
    return [{ type: i.code, loc: path, msg: i.message }];
  });
}

export function fromZodError(err: ZodError, where: string): AppError {
  return errors.validation(issuesOf(err, [where]));
}

/**
 * Checks an adapter's input against a service's contract (a zod schema in the service's
 * vocabulary): a mismatch is an InputError whose paths each adapter locates.
 */
export function parseInput<T extends ZodType>(contract: T, input: unknown): output<T> {
  const result = contract.safeParse(input);
  if (result.success) return result.data;
  throw new InputError(issuesOf(result.error, []));
}
