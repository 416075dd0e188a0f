import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { z } from "zod";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../platform/errors.ts";
import type { Runtime } from "../runtime.ts";
import { AUDIENCE_FIELD } from "../search/fields.ts";
import type { SearchHit } from "../search/search-index.ts";
import type { Services } from "../services.ts";
import { checkArguments, principalOf, toolError } from "./results.ts";
import { toolPrincipal } from "./tool-access.ts";
import type { McpToolName } from "./tool-names.ts";

export const UUID = z.uuid().describe("A UUID, e.g. 5f8e0c59-2f4c-4a4e-9b1e-0c2b8e9d7a11");
/** Ids are PostgreSQL integers: a larger number would fail in the database, not as bad input. */
export const ID = z.number().int().min(1).max(2_147_483_647);
/** Tool results hold at most this many items; totals say how many there are. */
export const MAX_ITEMS = 100;
export const pageArg = z.number().int().min(1).max(10_000).default(1).describe("Page number from 1.");
export const sizeArg = (fallback: number) => z.number().int().min(1).max(MAX_ITEMS).default(fallback).describe(`Items per page, 1 to ${MAX_ITEMS} (default ${fallback}).`);

/** Annotations of tools that only read. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
/** Annotations of tools that add data (nothing existing is removed or overwritten). */
export const ADDS_DATA = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

export interface ToolContext {
  services: Services;
  principal: Principal;
}

export type Handler<A> = (args: A, ctx: ToolContext) => Promise<CallToolResult>;

/**
 * Every tool runs the same way: the caller authenticated by this very HTTP request, checked for
 * `mcp:<tool>` and the tool's workbench scopes, then service calls (the same the REST layer
 * makes, so distribution, organisation isolation and search limits apply unchanged).
 */
export function wrap<A>(runtime: Runtime, tool: McpToolName, handler: Handler<A>) {
  return async (args: A, extra: { authInfo?: AuthInfo }): Promise<CallToolResult> => {
    try {
      checkArguments(args);
      const principal = toolPrincipal(principalOf(extra.authInfo), tool);
      return await handler(args, { services: runtime.services, principal });
    } catch (err) {
      return toolError(err, runtime.ctx.log, tool);
    }
  };
}

/** "3 hunts; page 1 holds 3." plus where the next page is, so a model knows how to go on. */
export function pageSummary(what: string, p: { total: number; page: number; size: number }, shown: number): string {
  const more = p.page * p.size < p.total;
  return `${p.total} ${what}; page ${p.page} holds ${shown}.${more ? ` Next: page ${p.page + 1}.` : ""}`;
}

/** A search hit as tools answer it: its id and source, without the audience list (the index's access bookkeeping, not data). */
export const hitOut = (h: SearchHit) => ({ id: h.id, ...Object.fromEntries(Object.entries(h.source).filter(([k]) => k !== AUDIENCE_FIELD)) });

/** Exactly one of the named arguments; a model that sends two gets told which. */
export function oneOf<K extends string>(args: Partial<Record<K, unknown>>, names: readonly K[]): K {
  const given = names.filter((n) => args[n] !== undefined);
  if (given.length !== 1) throw errors.invalidField(["arguments"], `give exactly one of ${names.join(", ")} (got ${given.length ? given.join(", ") : "none"})`);
  return given[0];
}
