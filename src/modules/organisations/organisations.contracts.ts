import { z } from "zod";
import { ORG_DOC } from "./organisations.docs.ts";

/**
 * The input contracts of organisation writes, in the service's vocabulary: the service checks its
 * input with them (every caller gets the same rules), REST derives its snake_case bodies, GraphQL
 * checks OrganisationInput and OrganisationPatch. Uniqueness needs the stored rows: the service.
 */
const text = (max: number, doc: string) => z.string().max(max).nullable().optional().describe(`${doc}; at most ${max} characters, null clears it`);

const organisationFields = {
  description: text(10_000, ORG_DOC.description),
  type: text(255, ORG_DOC.type),
  nationality: text(255, ORG_DOC.nationality),
  sector: text(255, ORG_DOC.sector),
  contacts: text(10_000, ORG_DOC.contacts),
  local: z.boolean().optional().describe(ORG_DOC.local),
  restrictedToDomain: z.array(z.string().max(255)).max(1000).optional().describe(`${ORG_DOC.restrictedToDomain}; at most 1000 domains of at most 255 characters`),
  landingPage: text(2048, ORG_DOC.landingPage),
};

const name = z.string().trim().min(1).max(255).describe(`${ORG_DOC.name}, 1 to 255 characters`);

export const organisationCreateContract = z
  .object({
    name,
    uuid: z.uuid().transform((u) => u.toLowerCase()).optional().describe(`${ORG_DOC.uuid}; absent: a new one`),
    ...organisationFields,
    local: z.boolean().optional().describe(`${ORG_DOC.local} (default true)`),
  })
  .strict();

/** PATCH: only what is given changes; the uuid never does. */
export const organisationPatchContract = z.object({ name: name.optional(), ...organisationFields }).strict();

export type OrganisationInput = z.input<typeof organisationCreateContract>;
export type OrganisationPatch = z.input<typeof organisationPatchContract>;
