import { z } from "zod";
import { attributeCreateContract, attributePatchContract } from "../attributes/index.ts";

/**
 * The input contracts of object writes, in the service's vocabulary: the REST shim derives its
 * snake_case bodies from them (`wireContract`), GraphQL checks its inputs with them
 * (`contractInput`). They give the shapes; the service's rules (text bounds, ranges, the object's
 * own uuids, first before last seen) come after and name every problem of the request at once.
 */
const uuid = z.guid().transform((u) => u.toLowerCase());

export const objectFieldsContract = z
  .object({
    name: z.string().optional().describe("The object template's name (domain-ip, file, ...), 1 to 255 characters on one line"),
    metaCategory: z.string().nullable().optional().describe("The template's meta-category (network, file, ...)"),
    description: z.string().nullable().optional().describe("The template's description"),
    templateUuid: z.string().nullable().optional().describe("UUID of the object template"),
    templateVersion: z.number().int().nullable().optional().describe("Version of the object template"),
    distribution: z.number().int().optional().describe("MISP distribution 0-5; 5: the event's"),
    sharingGroupId: z.number().int().nullable().optional().describe("The sharing group (distribution 4)"),
    comment: z.string().optional().describe("Free-text comment"),
    deleted: z.boolean().optional().describe("True soft-deletes it with its attributes and references, false restores it whole"),
    firstSeen: z.date().nullable().optional().describe("When it was first seen; null clears it"),
    lastSeen: z.date().nullable().optional().describe("When it was last seen, not before firstSeen; null clears it"),
  })
  .strict();

export const referenceCreateContract = z
  .object({
    uuid: uuid.optional().describe("The reference's UUID; absent: a new one"),
    objectUuid: z.string().nullable().optional().describe("MISP's redundant copy of the owning object's UUID: checked when given"),
    sourceUuid: z.string().nullable().optional().describe("Another redundant copy of the owning object's UUID: checked when given"),
    eventUuid: z.string().nullable().optional().describe("MISP's redundant copy of the object's event UUID: checked when given"),
    referencedUuid: z.string().describe("UUID of the attribute or object referred to"),
    referencedType: z.number().int().nullable().optional().describe("0 an attribute, 1 an object; absent: inferred from the event's content"),
    relationshipType: z.string().describe("The relationship (related-to, uses, connected-to, ...), 1 to 255 characters"),
    comment: z.string().optional().describe("Free-text comment"),
    deleted: z.boolean().optional().describe("Soft-deleted"),
  })
  .strict();

export const objectCreateContract = objectFieldsContract
  .extend({
    name: z.string().describe("The object template's name (domain-ip, file, ...), 1 to 255 characters on one line"),
    eventUuid: uuid.optional().describe("The event to add it to"),
    uuid: uuid.optional().describe("Its UUID; absent: a new one"),
    attributes: z.array(attributeCreateContract).optional().describe("Its attributes (at most 5000), each with type and value"),
    references: z.array(referenceCreateContract).optional().describe("Its references to attributes and objects (at most 1000)"),
  })
  .strict();

export const attributeUpdateInObjectContract = attributePatchContract.extend({ uuid: z.string().describe("The attribute of this object to change") }).strict();

export const objectPatchContract = objectFieldsContract
  .extend({
    newAttributes: z.array(attributeCreateContract).optional().describe("Attributes to add, each with type and value"),
    updateAttributes: z.array(attributeUpdateInObjectContract).optional().describe("Attributes to change, each named by its uuid"),
    deleteAttributes: z.array(z.string()).optional().describe("UUIDs of attributes to soft-delete"),
  })
  .strict();

export type ObjectFields = z.output<typeof objectFieldsContract>;
export type ReferenceCreate = z.output<typeof referenceCreateContract>;
export type ObjectCreate = z.output<typeof objectCreateContract>;
export type ObjectPatch = z.output<typeof objectPatchContract>;
