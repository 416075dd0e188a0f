import { routeTable } from "../../../rest-shim/index.ts";
import type { CaseContext, Expectation } from "./expectations.ts";

export interface RestRequest {
  path: string;
  json?: unknown;
  form?: Record<string, string>;
  /** A multipart body (file uploads). */
  multipart?: { fields: Record<string, string>; file: { name: string; content: string } };
  /** Overrides the caller's credential (e.g. a throwaway session for logout). */
  authorization?: string;
}

/** One row per REST route: how to aim it at A, and what B's callers and the validator get. */
export interface RestCase extends Expectation {
  /** `METHOD /path` exactly as in the route table. */
  route: string;
  request(ctx: CaseContext): RestRequest | Promise<RestRequest>;
}

export interface Answer {
  status: number;
  text: string;
}

export async function sendRest(c: RestCase, ctx: CaseContext): Promise<Answer> {
  const [method] = c.route.split(" ");
  const req = await c.request(ctx);
  const authorization = req.authorization ?? ctx.w.credential(ctx.actor);
  if (req.multipart) {
    const form = new FormData();
    for (const [k, v] of Object.entries(req.multipart.fields)) form.append(k, v);
    form.append("file", new Blob([req.multipart.file.content]), req.multipart.file.name);
    const res = await fetch(`${ctx.w.app.url}${req.path}`, { method, headers: { authorization }, body: form });
    return { status: res.status, text: await res.text() };
  }
  const res = await ctx.w.app.http.request(method, req.path, { authorization, json: req.json, form: req.form });
  return { status: res.status, text: res.text };
}

/** The scopes the route table declares for a route (none for anonymous routes). */
export function routeScopes(route: string): string[] {
  const r = routeTable.find((x) => `${x.method} ${x.path}` === route);
  if (!r) throw new Error(`no route ${route}`);
  return r.scopes ?? [];
}

/** Routes of the table without exactly one case: a new route must come with its row. */
export function uncoveredRoutes(cases: RestCase[]): string[] {
  const count = new Map<string, number>();
  for (const c of cases) count.set(c.route, (count.get(c.route) ?? 0) + 1);
  const missing = routeTable.map((r) => `${r.method} ${r.path}`).filter((r) => count.get(r) !== 1);
  const unknown = [...count.keys()].filter((r) => !routeTable.some((x) => `${x.method} ${x.path}` === r));
  return [...missing.map((r) => `${r} (${count.get(r) ?? 0} cases)`), ...unknown.map((r) => `${r} (not a route)`)];
}
