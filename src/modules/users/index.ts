/** The users area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { UsersService } from "./users.service.ts";
export type { UserRecord } from "./users.service.ts";
