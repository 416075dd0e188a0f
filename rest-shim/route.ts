import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Principal } from "../src/auth/principal.ts";
import type { Services } from "../src/services.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** The media type of each kind of request body (`RouteDef.bodyType`). */
export const MEDIA_TYPES = { json: "application/json", form: "application/x-www-form-urlencoded", multipart: "multipart/form-data" } as const;

export interface RouteContext<P, Q, B> {
  principal: Principal | null;
  params: P;
  query: Q;
  body: B;
  services: Services;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Answers with another status than the route's declared one (e.g. 200 for a re-import). */
  setStatus(status: number): void;
}

/**
 * One REST route: the shim validates the request against these schemas, checks the declared
 * scopes before looking at the input (so an unauthorised caller learns nothing from a 422), calls
 * one service function in the handler and serialises its answer. The same table produces /openapi.json.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: HttpMethod;
  /** OpenAPI style: `/users/{user_id}`. */
  path: string;
  /** Stable, unique, camelCase: generated clients name their functions after it. */
  operationId: string;
  summary: string;
  tag: string;
  /** Scopes the caller must hold; `null` for routes open to anonymous callers. Services check them again. */
  scopes: string[] | null;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /**
   * `form` for application/x-www-form-urlencoded bodies (the OAuth2 token endpoint); `multipart`
   * for uploads: the handler reads the parts as streams (`request.parts()`), no `body` schema.
   */
  bodyType?: "json" | "form" | "multipart";
  /** Wire names of service fields that are not their snake_case (`references` is `object_references`), for 422 locations. */
  wireNames?: Record<string, string>;
  /** Largest accepted body in bytes (default: the server's 1 MiB). */
  bodyLimit?: number;
  status: number;
  /** Other success statuses the handler may choose (`setStatus`), answered with the same body. */
  otherStatuses?: number[];
  /**
   * The JSON body of a success, as the serializer produces it (its output type). Required unless
   * the route answers 204 or streams a file (`download`); the test client checks every answer
   * of the suite against it.
   */
  response?: z.ZodType;
  /** The success answer has no body (the peer's 201 for tagging), though its status is not 204. */
  emptyBody?: true;
  /** For routes that stream a file instead of JSON: its media types. */
  download?: { mediaTypes: string[] };
  /** The body of its 4xx answers when it is not the Error shape (the MISP-compatible API answers MISP's). */
  errorResponse?: z.ZodType;
  /** The parts of a `multipart` body, for the OpenAPI document (files as `binaryPart()`). */
  multipartBody?: z.ZodType;
  handler(ctx: RouteContext<P, Q, B>): unknown | Promise<unknown>;
}

export function defineRoute<P = undefined, Q = undefined, B = undefined>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}
