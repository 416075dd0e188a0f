import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Principal } from "../auth/principal.ts";
import { AppError, InputError, errors } from "../platform/errors.ts";
import type { Logger } from "../platform/logger.ts";
import { findUnsafeText } from "../platform/unsafe-text.ts";

/** Strings longer than this are cut: data can hold megabytes of text meant for no model. */
export const MAX_STRING_CHARS = 2_000;

/** Copies a value with every long string cut and marked, so a model sees that something was left out. */
export function truncated(value: unknown, max = MAX_STRING_CHARS): unknown {
  if (typeof value === "string") return value.length > max ? `${value.slice(0, max)}…[truncated ${value.length - max} characters]` : value;
  if (Array.isArray(value)) return value.map((v) => truncated(v, max));
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, truncated(v, max)]));
  }
  return value;
}

/**
 * A tool's answer: the data as structured content (never mixed into prose, so instructions hidden
 * in the data stay data) plus a one-line summary for clients that only show text.
 */
export function toolResult(summary: string, data: Record<string, unknown>): CallToolResult {
  const structuredContent = truncated(data) as Record<string, unknown>;
  return { content: [{ type: "text", text: `${summary}\n${JSON.stringify(structuredContent)}` }], structuredContent };
}

/**
 * Refusals and bad input as tool errors the model can read and act on (a bad Lucene query with its
 * position, 429 with when to retry); anything else is logged and answered without internals.
 */
export function toolError(thrown: unknown, log: Logger, tool: string): CallToolResult {
  // A service names its own fields; to the model they are the tool's arguments.
  const err = thrown instanceof InputError ? thrown.located((field) => ["arguments", ...field]) : thrown;
  // A remote MISP's failure is the server tools' answer in words (the service names the remote, never its key).
  if (err instanceof AppError && (err.status < 500 || err.code === "search_timeout" || err.code === "search_unavailable" || err.code === "upstream_unavailable")) {
    const body = err.toBody();
    const detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    const retry = err.headers["Retry-After"];
    const advice = err.status === 429 ? ` Retry after ${retry ?? "a few"} seconds; run fewer searches at once.` : "";
    return { isError: true, content: [{ type: "text", text: `${body.code}: ${detail}${advice}` }], structuredContent: truncated(body) as Record<string, unknown> };
  }
  log.error({ err, tool }, "MCP tool failed");
  return { isError: true, content: [{ type: "text", text: "internal_error: the tool failed; try again later" }] };
}

/** A NUL or lone surrogate in any argument is refused before a service sees it, as REST does. */
export function checkArguments(args: unknown): void {
  const issues = findUnsafeText(args, ["arguments"]);
  if (issues.length) throw errors.validation(issues);
}

const PRINCIPAL = "workbenchPrincipal";

/** What the HTTP layer attaches to each request: the freshly authenticated caller. */
export function authInfoOf(p: Principal): AuthInfo {
  return { token: "", clientId: String(p.credentialId ?? p.userId ?? ""), scopes: [], extra: { [PRINCIPAL]: p } };
}

export function principalOf(info: AuthInfo | undefined): Principal {
  const p = info?.extra?.[PRINCIPAL];
  if (!p || typeof p !== "object" || !("grantSets" in p)) throw errors.unauthenticated();
  return p as Principal;
}
