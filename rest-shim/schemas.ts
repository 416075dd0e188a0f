import { z } from "zod";
import { attributeCreateContract, attributePatchContract } from "../src/modules/attributes/index.ts";
import { wireContract } from "./contract.ts";

/** Path ids: digits only; anything else is a 422 naming the parameter, never a database error. */
export const intId = z
  .string()
  .regex(/^[0-9]{1,10}$/, "must be a positive integer")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 2_147_483_647, "must be a positive integer");

export const idOrUuid = z.union([
  intId,
  z.uuid().transform((u) => u.toLowerCase()),
]);

export const idParams = (name: string) => z.object({ [name]: intId }).strict();

export const queryInt = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^-?[0-9]{1,10}$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(dflt);

/** The peer's P4 paging: `skip` and `limit`, answered with a plain array. */
export const skipLimitQuery = z
  .object({ skip: queryInt(0, 1_000_000_000, 0), limit: queryInt(1, 1000, 100) })
  .strict();

export const queryBool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/** The peer's P1 paging: `page` (from 1) and `size` (1..100, default 50). */
export const pageQueryFields = {
  page: queryInt(1, 1_000_000, 1),
  size: queryInt(1, 100, 50),
};

export const queryIntOptional = (min: number, max: number) =>
  z.string().regex(/^-?[0-9]{1,10}$/, "must be an integer").transform(Number).pipe(z.number().int().min(min).max(max)).optional();

/** A query-string integer checked by a contract's field (its bounds and default written once, in the contract). */
export const queryIntInto = (field: z.ZodType<number, number | undefined>) =>
  z.string().regex(/^-?[0-9]{1,10}$/, "must be an integer").transform(Number).pipe(field as z.ZodType<number, number>).optional();

export const isoDateTime = z.iso.datetime({ offset: true, local: true }).transform((s) => new Date(s));

/**
 * Any 8-4-4-4-12 hex uuid (MISP data holds uuids of every version and variant), lower-cased.
 * Bounds, NUL bytes and the MISP type rules are checked by the services, for GraphQL as well.
 */
export const anyUuid = z.guid().transform((u) => u.toLowerCase());

/** Query text: never a NUL byte (PostgreSQL refuses it), at most `max` characters. */
export const queryText = (max = 255) => z.string().max(max).refine((s) => !s.includes("\0"), "must not contain NUL bytes");

const MAX_EPOCH = 253_402_300_799;

/** first_seen / last_seen: epoch seconds as the peer, or an ISO 8601 time (no offset: UTC). */
export const seenTime = z
  .union([z.number().min(0).max(MAX_EPOCH), z.iso.datetime({ offset: true, local: true })])
  .nullable()
  .transform((v) => (v === null ? null : typeof v === "number" ? new Date(Math.round(v * 1000)) : new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`)));

/** The peer's `timestamp` fields: accepted for its clients, but the server stamps every write. */
export const ignoredTimestamp = z.number().min(0).max(MAX_EPOCH).nullable().optional();

/** An attribute's wire options: seen times in epoch seconds or ISO 8601, MISP's timestamp accepted and ignored. */
export const attributeWire = { codecs: { firstSeen: seenTime.optional(), lastSeen: seenTime.optional() }, extra: { timestamp: ignoredTimestamp } };

/** The peer's AttributeCreate (also the items of an object's `attributes` and `new_attributes`), from the attributes contract. */
export const attributeCreateWire = wireContract(attributeCreateContract, attributeWire);
/** The peer's attribute update, from the attributes contract. */
export const attributePatchWire = wireContract(attributePatchContract, attributeWire);
