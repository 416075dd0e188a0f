import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { adminApiKeyListContract, apiKeyLockContract, apiKeyToggleContract, createApiKeyContract } from "../../src/modules/api-keys/index.ts";
import { idParams, intId, isoDateTime } from "../schemas.ts";
import { ApiKeySchema, CreatedApiKeySchema, apiKeyOut } from "../serializers.ts";

/** expires_at: an ISO 8601 time, or null for a key that never expires. */
const createApiKeyWire = wireContract(createApiKeyContract, { codecs: { expiresAt: isoDateTime.nullable().optional() } });

const toggleWire = wireContract(apiKeyToggleContract);
/** The administrator's hold is `disabled` on the wire (the peer's name), `locked` in the service. */
const lockWire = wireContract(apiKeyLockContract, { names: { locked: "disabled" } });
const adminListWire = wireContract(adminApiKeyListContract, { codecs: { userId: intId.optional() } });

const keyId = idParams("key_id");

export const apiKeyRoutes = [
  defineRoute({
    method: "GET", path: "/api-keys/", operationId: "listApiKeys", summary: "List the caller's own API keys (never the token or its hash)", tag: "api-keys",
    scopes: ["api_keys:read"], status: 200, response: z.array(ApiKeySchema),
    handler: async ({ principal, services }) => (await services.apiKeys.listOwn(principal)).map(apiKeyOut),
  }),
  defineRoute({
    method: "POST", path: "/api-keys/", operationId: "createApiKey", summary: "Create an API key; the token is returned only in this response", tag: "api-keys",
    scopes: ["api_keys:create"], status: 201, response: CreatedApiKeySchema,
    body: createApiKeyWire.object,
    handler: async ({ principal, body, services }) => {
      const { key, token } = await services.apiKeys.create(principal, createApiKeyWire.fromWire(body));
      return { ...apiKeyOut(key), token };
    },
  }),
  defineRoute({
    method: "PATCH", path: "/api-keys/{key_id}", operationId: "updateApiKey", summary: "Enable or disable your own key: {\"disabled\": bool}", tag: "api-keys",
    scopes: ["api_keys:update"], params: keyId, body: toggleWire.object, status: 200, response: ApiKeySchema,
    handler: async ({ principal, params, body, services }) => apiKeyOut(await services.apiKeys.setDisabled(principal, params.key_id, toggleWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/api-keys/{key_id}", operationId: "deleteApiKey", summary: "Delete your own key (refused while an administrator holds it)", tag: "api-keys",
    scopes: ["api_keys:delete"], params: keyId, status: 204,
    handler: ({ principal, params, services }) => services.apiKeys.deleteOwn(principal, params.key_id),
  }),
  defineRoute({
    method: "GET", path: "/admin/api-keys/", operationId: "adminListApiKeys", summary: "List every user's API keys, optionally of one user", tag: "api-keys",
    scopes: ["api_keys:admin"], query: adminListWire.object, status: 200, response: z.array(ApiKeySchema),
    handler: async ({ principal, query, services }) => (await services.apiKeys.adminList(principal, adminListWire.fromWire(query))).map(apiKeyOut),
  }),
  defineRoute({
    method: "PATCH", path: "/admin/api-keys/{key_id}", operationId: "adminUpdateApiKey", summary: "Lock or unlock a key: {\"disabled\": bool} sets the administrator's hold", tag: "api-keys",
    scopes: ["api_keys:admin"], params: keyId, body: lockWire.object, wireNames: { locked: "disabled" }, status: 200, response: ApiKeySchema,
    handler: async ({ principal, params, body, services }) => apiKeyOut(await services.apiKeys.adminSetLocked(principal, params.key_id, lockWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/admin/api-keys/{key_id}", operationId: "adminDeleteApiKey", summary: "Delete any user's key", tag: "api-keys",
    scopes: ["api_keys:admin"], params: keyId, status: 204,
    handler: ({ principal, params, services }) => services.apiKeys.adminDelete(principal, params.key_id),
  }),
];
