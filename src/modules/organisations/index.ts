/** The organisations area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { organisationCreateContract, organisationPatchContract } from "./organisations.contracts.ts";
export type { OrganisationInput, OrganisationPatch } from "./organisations.contracts.ts";
export { ORG_DOC, ORG_TYPES_DOC } from "./organisations.docs.ts";
export { OrganisationsService } from "./organisations.service.ts";
