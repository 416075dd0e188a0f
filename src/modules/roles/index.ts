/** The roles area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { RoleType } from "./roles.graphql.ts";
export { ADMIN_ROLE_ID, RolesService, canAssignRole, diff, isUniqueViolation } from "./roles.service.ts";
