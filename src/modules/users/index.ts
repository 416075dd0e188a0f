/** The users area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { ownPasswordContract, userCreateContract, userPatchContract } from "./users.contracts.ts";
export type { CreateUserInput, OwnPasswordChange, UpdateUserInput } from "./users.contracts.ts";
export { USER_DOC, USER_TYPES_DOC } from "./users.docs.ts";
export { UsersService } from "./users.service.ts";
export type { UserRecord } from "./users.service.ts";
