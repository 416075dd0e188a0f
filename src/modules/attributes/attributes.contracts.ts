import { z } from "zod";

/**
 * The input contracts of attribute writes, in the service's vocabulary: the REST shim derives its
 * snake_case bodies from them (rest-shim/contract.ts `wireContract`), GraphQL validates its input
 * with them (`parseInput`); the service's rules (types, categories, values) come after.
 */
const uuid = z.guid().transform((u) => u.toLowerCase());

const attributeFields = {
  category: z.string().optional().describe("MISP category; default: the type's default category"),
  objectRelation: z.string().nullable().optional().describe("Its relation name inside its object; null for a standalone attribute"),
  toIds: z.boolean().optional().describe("Usable for detection (MISP's IDS flag); default: the type's default"),
  distribution: z.number().int().optional().describe("MISP distribution 0-5; 5: the event's"),
  sharingGroupId: z.number().int().nullable().optional().describe("The sharing group (distribution 4)"),
  comment: z.string().optional(),
  deleted: z.boolean().optional().describe("Soft-deleted; false restores it"),
  disableCorrelation: z.boolean().optional().describe("Left out of correlation when true"),
  firstSeen: z.date().nullable().optional().describe("When it was first seen; null clears it"),
  lastSeen: z.date().nullable().optional().describe("When it was last seen; null clears it"),
  objectUuid: uuid.nullable().optional().describe("The object of its event to put it in; null: standalone"),
};

export const attributeCreateContract = z
  .object({
    type: z.string().describe("MISP attribute type (ip-dst, domain, sha256, domain|ip, ...)"),
    value: z.string().describe("The value; a composite type's halves joined by |"),
    eventUuid: uuid.optional().describe("The event (given by the route or object when absent)"),
    uuid: uuid.optional().describe("Its UUID; absent: a new one"),
    ...attributeFields,
  })
  .strict();

export const attributePatchContract = z
  .object({ type: z.string().optional(), value: z.string().optional(), ...attributeFields })
  .strict();

export type AttributeCreate = z.output<typeof attributeCreateContract>;
export type AttributePatch = z.output<typeof attributePatchContract>;

/** Attributes one duplicate lookup checks at most (MISP's attributes/add takes 1000 at once). */
export const MAX_DUPLICATE_KEYS = 1000;

/** MISP's duplicate check of a list of would-be standalone attributes of one event (attributes/add). */
export const duplicatesContract = z
  .object({
    eventUuid: z.uuid().describe("The event the attributes would be added to"),
    candidates: z
      // Not checked further: a candidate no write could store (a NUL byte, too long) has no duplicate, and its own write says why.
      .array(z.object({ type: z.string(), value: z.string(), category: z.string().optional() }).strict())
      .max(MAX_DUPLICATE_KEYS)
      .describe("Type, value and (when given) category of each would-be attribute"),
  })
  .strict();
