import { z } from "zod";
import type { Principal } from "../../src/auth/principal.ts";
import { errors } from "../../src/platform/errors.ts";
import type { Services } from "../../src/services.ts";
import type { RouteDef } from "../route.ts";
import { MispErrorSchema, type MispMessages } from "./misp-errors.ts";

/** Where the MISP-compatible API lives: PyMISP's base URL is `http://host/misp/` (with the slash: it joins paths with urljoin). */
export const MISP_PREFIX = "/misp";

/**
 * One route of the MISP-compatible API: a REST route of the table (OpenAPI, matrices) under the
 * `misp` tag, served by the MISP registrar (rest-shim/misp/misp-register.ts): `Authorization: <key>`
 * or `X-MISP-AUTH`, MISP's error bodies, and PyMISP's `/key:value` path parameters, which reach the
 * handler in `query` beside the query string (as do `positional` trailing segments, by name).
 */
export interface MispRouteDef extends RouteDef {
  misp: MispMessages & { positional?: string[] };
}

export function defineMispRoute<P = undefined, Q = undefined, B = undefined>(
  def: Omit<RouteDef<P, Q, B>, "tag"> & { misp: MispRouteDef["misp"] },
): MispRouteDef {
  if (!def.path.startsWith(`${MISP_PREFIX}/`)) throw new Error(`MISP route outside ${MISP_PREFIX}/: ${def.path}`);
  return { ...(def as unknown as RouteDef), tag: "misp", errorResponse: MispErrorSchema, misp: def.misp };
}

const MAX_ID = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** MISP names a thing by its numeric id or its uuid. */
export type MispRef = { id: number } | { uuid: string };

/** A path parameter `{id|uuid}`; anything else is the route's 404 ("Invalid event"), as MISP finds nothing by it. */
export const mispRef = z
  .string()
  .refine((s) => (/^\d{1,10}$/.test(s) && Number(s) >= 1 && Number(s) <= MAX_ID) || UUID.test(s), "must be a numeric id or a uuid")
  .transform((s): MispRef => (UUID.test(s) ? { uuid: s.toLowerCase() } : { id: Number(s) }))
  .describe("The numeric id or the uuid");

/** The uuid a reference names, or the kind's 404 (`what`: "Event", "Attribute"). */
export async function uuidOfRef(ref: MispRef, byId: (id: number) => Promise<string | null>, what: string): Promise<string> {
  if ("uuid" in ref) return ref.uuid;
  const uuid = await byId(ref.id);
  if (!uuid) throw errors.notFound(what);
  return uuid;
}

export const eventUuidOf = (services: Services, p: Principal | null, ref: MispRef) => uuidOfRef(ref, (id) => services.events.uuidOf(p, id), "Event");
export const attributeUuidOf = (services: Services, p: Principal | null, ref: MispRef) => uuidOfRef(ref, (id) => services.attributes.uuidOf(p, id), "Attribute");

/** MISP's booleans as clients send them: true/false, 1/0, "1"/"0", "true"/"false". */
export const mispBool = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(["0", "1", "true", "false", "True", "False"])])
  .transform((v) => v === true || v === 1 || v === "1" || v === "true" || v === "True");

/** Named parameters MISP ignores when it does not know them: only the ones a route reads are checked. */
export const namedParams = <S extends z.ZodRawShape>(shape: S) => z.object(shape).loose();
