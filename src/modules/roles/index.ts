/** The roles area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { roleCreateContract, rolePatchContract } from "./roles.contracts.ts";
export type { RoleInput, RolePatch } from "./roles.contracts.ts";
export { ROLE_DOC, ROLE_TYPES_DOC, SCOPE_DOC } from "./roles.docs.ts";
export { ADMIN_ROLE_ID, RolesService, canAssignRole, diff, isUniqueViolation } from "./roles.service.ts";
