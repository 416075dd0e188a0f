import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Multipart } from "@fastify/multipart";
import { z } from "zod";
import { authorize } from "../src/auth/principal.ts";
import { InputError, errors, fromZodError, snakeCase } from "../src/platform/errors.ts";
import { findUnsafeText } from "../src/platform/unsafe-text.ts";
import type { Runtime } from "../src/runtime.ts";
import { originOf } from "./origin.ts";
import { MEDIA_TYPES, type RouteDef } from "./route.ts";

/** `/users/{user_id}` → `/users/:user_id` */
export const fastifyPath = (path: string) => path.replace(/\{([a-z_]+)\}/g, ":$1");

export function authorizationHeaders(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === "authorization") values.push(raw[i + 1]);
  return values;
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? (where === "body" ? undefined : {}));
  if (!result.success) throw fromZodError(result.error, where);
  return result.data;
}

export function registerRoutes(app: FastifyInstance, routes: RouteDef[], runtime: Runtime): void {
  for (const def of routes) {
    app.route({
      method: def.method,
      url: fastifyPath(def.path),
      bodyLimit: def.bodyLimit,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const { services } = runtime;
        // Authentication and scopes come before any look at the input: an unauthorised caller
        // gets 401/403, never a 422 that describes the route.
        const principal =
          def.scopes === null ? null : await services.authenticator.authenticate(authorizationHeaders(request), originOf(request));
        if (def.scopes !== null) authorize(principal, ...def.scopes);
        if (def.body || def.bodyType === "multipart") checkContentType(request, def.bodyType ?? "json");
        refuseUnsafeText(request, def.bodyType === "multipart");
        const params = parsePart(def.params, request.params, "path");
        const query = parsePart(def.query, request.query, "query");
        const body = parsePart(def.body, request.body, "body");
        let status = def.status;
        let result: unknown;
        try {
          result = await def.handler({ principal, params, query, body, services, request, reply, setStatus: (s) => (status = s) });
        } catch (err) {
          throw inRestTerms(err, def);
        }
        reply.status(status);
        if (status === 204) return reply.send();
        return reply.send(result);
      },
    });
  }
}

/**
 * A service's complaint about a field, said where the caller sent it: a path parameter, else the
 * body, or the query string of a route without one; names in snake_case, or as `wireNames` renames them.
 */
function inRestTerms(err: unknown, def: RouteDef): unknown {
  if (!(err instanceof InputError)) return err;
  const pathNames = new Set(def.params instanceof z.ZodObject ? Object.keys(def.params.shape) : []);
  const inputLocation = def.body || def.bodyType === "multipart" ? "body" : "query";
  return err.located((field) => {
    const [head, ...rest] = field.map(snakeCase);
    if (head === undefined) return [inputLocation];
    const name = typeof head === "string" ? (def.wireNames?.[head] ?? head) : head;
    return [pathNames.has(String(name)) ? "path" : inputLocation, name, ...rest];
  });
}

/**
 * A NUL character or an unpaired surrogate anywhere in the input (path, query, JSON or form body,
 * multipart field) is a 422 naming where it is, for every route before any validation or service
 * runs: PostgreSQL cannot store either, and a route that forgot would answer 500 at its first
 * INSERT. Multipart parts are checked as the handler reads them (they stream).
 */
function refuseUnsafeText(request: FastifyRequest, multipart: boolean): void {
  const issues = [
    ...findUnsafeText(request.params, ["path"]),
    ...findUnsafeText(request.query, ["query"]),
    ...(multipart ? [] : findUnsafeText(request.body, ["body"])),
  ];
  if (issues.length) throw errors.validation(issues);
  if (multipart) {
    const parts = request.parts.bind(request);
    request.parts = (options) => checkedParts(parts(options));
  }
}

async function* checkedParts(parts: AsyncIterableIterator<Multipart>): AsyncIterableIterator<Multipart> {
  for await (const part of parts) {
    const issues = findUnsafeText(part.fieldname, ["body", part.fieldname]);
    if (part.type === "file") issues.push(...findUnsafeText(part.filename, ["body", part.fieldname, "filename"]));
    else issues.push(...findUnsafeText(part.value, ["body", part.fieldname]));
    if (issues.length) {
      if (part.type === "file") part.file.resume();
      throw errors.validation(issues);
    }
    yield part;
  }
}


function checkContentType(request: FastifyRequest, expected: keyof typeof MEDIA_TYPES): void {
  const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== MEDIA_TYPES[expected]) throw errors.unsupportedMediaType(`Content-Type must be ${MEDIA_TYPES[expected]}`);
}

/** The methods a path answers to, for 405 responses. */
export function methodsForPath(routes: RouteDef[], url: string): string[] {
  const path = url.split("?")[0].replace(/\/+$/, "") || "/";
  const methods = new Set<string>();
  for (const r of routes) {
    const pattern = new RegExp("^" + r.path.replace(/\/+$/, "").replace(/\{[a-z_]+\}/g, "[^/]+") + "$");
    if (pattern.test(path)) methods.add(r.method);
  }
  return [...methods];
}
