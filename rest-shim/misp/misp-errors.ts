import { z } from "zod";
import { AppError, fromDatabaseRefusal, snakeCase, type ValidationIssue } from "../../src/platform/errors.ts";
import { named } from "../contract.ts";

/**
 * MISP's error bodies. An exception (auth, not found, bad input) is CakePHP's `{name, message, url}`;
 * a refused save is MISP's `saveFailResponse`: `{saved: false, name, message, url, errors}` with 403,
 * where `errors` says what was wrong (field → messages, or a sentence).
 */
export const MispErrorSchema = named(
  "MispError",
  z.object({
    saved: z.literal(false).optional(),
    name: z.string(),
    message: z.string(),
    url: z.string(),
    errors: z.unknown().optional().describe("What was refused: field → messages, per attribute (attribute_0, ...), or a sentence"),
    id: z.string().optional(),
  }),
  "An error as MISP answers it (PyMISP compares name and message)",
);
export type MispErrorBody = z.output<typeof MispErrorSchema>;

/** MISP's exact messages, where PyMISP and MISP's own clients compare them. */
export const MISP_MESSAGES = {
  authFailed: "Authentication failed. Please make sure you pass the API key of an API enabled user along in the Authorization header.",
  noPermission: "You do not have permission to use this functionality.",
  notAllowed: "You do not have permission to do that.",
  invalidJson: "Invalid JSON input. Make sure that the JSON input is a correctly formatted JSON string. This request has been blocked to avoid an unfiltered request.",
  internal: "An Internal Error Has Occurred.",
} as const;

export class MispError extends Error {
  constructor(
    readonly status: number,
    readonly body: Omit<MispErrorBody, "url">,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }

  toBody(url: string): MispErrorBody {
    return { ...this.body, url };
  }
}

/** A CakePHP exception: `{name, message, url}` with its status. */
export const mispException = (status: number, message: string, headers: Record<string, string> = {}) => new MispError(status, { name: message, message }, headers);

/** MISP's `saveFailResponse` ("Could not add Attribute"): 403 with what was wrong. */
export const mispSaveFailed = (what: string, errors: unknown, id?: string) => {
  const message = `Could not ${what}`;
  return new MispError(403, { saved: false, name: message, message, errors, ...(id === undefined ? {} : { id }) });
};

/**
 * Invalid fields as MISP lists them: `{"value": ["..."]}`, names in snake_case (nested places joined
 * by dots). The places are the caller's field names: gathered in a Map, so that `constructor` or
 * `__proto__` is a field like any other and not the object's inherited member.
 */
export function mispFieldErrors(issues: readonly ValidationIssue[]): Record<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of issues) {
    const place = i.loc.filter((l) => l !== "body" && l !== "path" && l !== "query").map(snakeCase).join(".") || "request";
    const messages = out.get(place);
    if (messages) messages.push(i.msg);
    else out.set(place, [i.msg]);
  }
  return Object.fromEntries(out);
}

/** What a MISP route says when a service refuses: the route's own messages, else MISP's general ones. */
export interface MispMessages {
  /** 404 (MISP's NotFoundException), e.g. "Invalid event". */
  notFound: string;
  /** 403 when the caller may read but not change the thing, e.g. "You are not authorised to do that.". */
  forbidden?: string;
  /** Writes: invalid input and conflicts answer MISP's saveFailResponse, "Could not <what>" ("add Event"). */
  saveFailed?: string;
}

/** Any error of a MISP route as MISP would answer it; never our `{detail, code}` shape. */
export function toMispError(err: unknown, messages: MispMessages): MispError {
  if (err instanceof MispError) return err;
  const appError = err instanceof AppError ? err : fromDatabaseRefusal(err);
  if (!appError) {
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413) return mispException(413, "Request body is too large");
    if (status === 415) return mispException(415, "Unsupported Content-Type");
    if (status && status >= 400 && status < 500) return mispException(400, "Bad Request");
    return mispException(500, MISP_MESSAGES.internal);
  }
  const detail = typeof appError.detail === "string" ? appError.detail : appError.message;
  switch (appError.code) {
    case "unauthenticated":
    case "token_revoked":
    case "invalid_credentials":
    case "invalid_grant":
      return mispException(403, MISP_MESSAGES.authFailed);
    case "insufficient_scope":
      return mispException(403, MISP_MESSAGES.noPermission);
    case "forbidden":
      return mispException(403, messages.forbidden ?? MISP_MESSAGES.notAllowed);
    case "not_found":
      return mispException(404, messages.notFound);
    case "validation_error":
    case "conflict":
    case "bad_request": {
      const errors = typeof appError.detail === "string" ? detail : mispFieldErrors(appError.detail);
      if (messages.saveFailed) return mispSaveFailed(messages.saveFailed, errors);
      return new MispError(400, { name: "Bad Request", message: typeof errors === "string" ? errors : "Invalid input", errors });
    }
    default:
      return appError.status >= 500 ? mispException(appError.status, appError.status === 500 ? MISP_MESSAGES.internal : detail, appError.headers) : mispException(appError.status, detail, appError.headers);
  }
}
