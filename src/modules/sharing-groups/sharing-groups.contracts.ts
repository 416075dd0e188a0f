import { z } from "zod";
import { storedText } from "../../platform/contract-fields.ts";

/**
 * The input contracts of sharing-group writes, in the service's vocabulary (REST derives its
 * snake_case bodies with `wireContract`, GraphQL checks its inputs with `contractInput`).
 */
const name = storedText(255)
  .trim()
  .min(1)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be one line without control characters")
  .describe("Its name, unique on this instance, 1 to 255 characters on one line");
const id = z.number().int().min(1).max(2_147_483_647);

export const memberContract = z
  .object({
    orgId: id.describe("The member organisation's numeric id"),
    extend: z.boolean().optional().describe("Whether the member may add organisations to the group (default false)"),
  })
  .strict();

const groupFields = {
  releasability: storedText(65_535).optional().describe("Who the data may be passed on to (MISP's releasability statement)"),
  description: storedText(65_535).optional().describe("What the group is for"),
  active: z.boolean().optional().describe("Whether data may be assigned to it (default true); an inactive group still reads as before"),
  roaming: z.boolean().optional().describe("Whether sync may push its data to any server of a member organisation (default false: internal servers only)"),
};

export const sharingGroupCreateContract = z
  .object({
    name,
    uuid: z.guid().transform((u) => u.toLowerCase()).optional().describe("Its UUID; absent: a new one"),
    orgId: id.optional().describe("The owning organisation (administrators only; default: yours)"),
    ...groupFields,
    members: z.array(memberContract).max(1000).optional().describe("Member organisations besides the owner (at most 1000)"),
  })
  .strict();

export const sharingGroupPatchContract = z.object({ name: name.optional(), ...groupFields }).strict();

export type SharingGroupCreate = z.output<typeof sharingGroupCreateContract>;
export type SharingGroupPatch = z.output<typeof sharingGroupPatchContract>;
export type MemberInput = z.output<typeof memberContract>;
