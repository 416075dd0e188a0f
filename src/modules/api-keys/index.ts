/** The api-keys area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { apiKeyResolver, sha256Hex } from "./api-key-auth.ts";
export { adminApiKeyListContract, apiKeyLockContract, apiKeyToggleContract, createApiKeyContract } from "./api-keys.contracts.ts";
export type { AdminApiKeyList, ApiKeyLock, ApiKeyToggle, CreateApiKeyInput } from "./api-keys.contracts.ts";
export { API_KEY_DOC, API_KEY_TYPES_DOC } from "./api-keys.docs.ts";
export { ApiKeysService } from "./api-keys.service.ts";
export type { ApiKeyRecord } from "./api-keys.service.ts";
