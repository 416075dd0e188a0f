/** The api-keys area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { apiKeyResolver, sha256Hex } from "./api-key-auth.ts";
export { ApiKeysService } from "./api-keys.service.ts";
export type { ApiKeyRecord } from "./api-keys.service.ts";
