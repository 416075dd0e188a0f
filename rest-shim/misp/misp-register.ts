import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { authorize } from "../../src/auth/principal.ts";
import { errors, fromZodError } from "../../src/platform/errors.ts";
import { findUnsafeText } from "../../src/platform/unsafe-text.ts";
import type { Runtime } from "../../src/runtime.ts";
import { originOf } from "../origin.ts";
import { fastifyPath } from "../register.ts";
import { MISP_MESSAGES, mispException, toMispError } from "./misp-errors.ts";
import { MISP_PREFIX, type MispRouteDef } from "./misp-route.ts";

/** The API key as MISP takes it: `Authorization` (raw or Bearer, as everywhere) or `X-MISP-AUTH`. */
function credentials(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === "authorization" || name === "x-misp-auth") values.push(raw[i + 1]);
  }
  return values;
}

/** PyMISP's `/key:value` segments after the route's own path; other segments fill `positional` names in order. */
function trailingParameters(def: MispRouteDef, tail: string | undefined): Record<string, string> {
  const named: Record<string, string> = {};
  const positional = [...(def.misp.positional ?? [])];
  for (const segment of (tail ?? "").split("/").filter(Boolean)) {
    const colon = segment.indexOf(":");
    if (colon > 0) named[segment.slice(0, colon)] = segment.slice(colon + 1);
    else if (positional.length) named[positional.shift()!] = segment;
    else throw mispException(404, def.misp.notFound);
  }
  return named;
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, where);
  return result.data;
}

/**
 * Serves the MISP-compatible routes under /misp/ in their own Fastify scope: MISP's error bodies for
 * everything there (unknown paths and bad JSON included), an empty JSON body read as none (PyMISP
 * sends `Content-Type: application/json` on every request), then, per route, what the REST shim
 * does: authentication and scopes before any look at the input, NUL and lone surrogates refused,
 * one service call.
 */
export function registerMispApi(app: FastifyInstance, routes: MispRouteDef[], runtime: Runtime): void {
  void app.register(
    async (scope) => {
      scope.removeContentTypeParser("application/json");
      scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
        const text = String(body);
        if (!text.trim()) return done(null, undefined);
        try {
          done(null, JSON.parse(text));
        } catch {
          done(mispException(405, MISP_MESSAGES.invalidJson), undefined);
        }
      });
      scope.setErrorHandler((err, request, reply) => {
        const def = (request.routeOptions.config as { misp?: MispRouteDef }).misp;
        const misp = toMispError(err, def?.misp ?? { notFound: "Not Found" });
        if (misp.status >= 500) request.log.error({ err }, "request failed");
        void reply.status(misp.status).headers(misp.headers).send(misp.toBody(request.url.split("?")[0]));
      });
      scope.setNotFoundHandler((request, reply) => {
        void reply.status(404).send(mispException(404, "Not Found").toBody(request.url.split("?")[0]));
      });
      for (const def of routes) {
        const path = fastifyPath(def.path.slice(MISP_PREFIX.length));
        for (const url of [path, `${path}/*`]) {
          scope.route({ method: def.method, url, bodyLimit: def.bodyLimit, config: { misp: def }, handler: (request, reply) => handle(def, request, reply, runtime) });
        }
      }
    },
    { prefix: MISP_PREFIX },
  );
}

async function handle(def: MispRouteDef, request: FastifyRequest, reply: FastifyReply, runtime: Runtime): Promise<unknown> {
  const { services } = runtime;
  const principal = def.scopes === null ? null : await services.authenticator.authenticate(credentials(request), originOf(request));
  if (def.scopes !== null) authorize(principal, ...def.scopes);
  const { "*": tail, ...pathParams } = request.params as Record<string, string>;
  let params: unknown;
  try {
    params = parsePart(def.params, pathParams, "path");
  } catch {
    // MISP looks the thing up by whatever it was given and finds nothing.
    throw mispException(404, def.misp.notFound);
  }
  const queryInput = { ...(request.query as Record<string, unknown>), ...trailingParameters(def, tail) };
  const issues = [...findUnsafeText(pathParams, ["path"]), ...findUnsafeText(queryInput, ["query"]), ...findUnsafeText(request.body, ["body"])];
  if (issues.length) throw errors.validation(issues);
  const query = parsePart(def.query, queryInput, "query");
  const body = parsePart(def.body, request.body, "body");
  let status = def.status;
  const result = await def.handler({ principal, params, query, body, services, request, reply, setStatus: (s) => (status = s) });
  reply.status(status);
  return reply.send(result);
}
