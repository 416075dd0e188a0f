/** The organisations area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { OrganisationType } from "./organisations.graphql.ts";
export { OrganisationsService } from "./organisations.service.ts";
