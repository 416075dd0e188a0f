import { builder, caller } from "../../graphql/builder.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { adminApiKeyListContract, apiKeyLockContract, apiKeyToggleContract, createApiKeyContract } from "./api-keys.contracts.ts";
import type { ApiKeyRecord } from "./api-keys.service.ts";
import { DOC } from "../../graphql/docs.ts";
import { API_KEY_DOC, API_KEY_TYPES_DOC } from "./api-keys.docs.ts";

const KEY_DOC = API_KEY_DOC;
const KEY_ID = API_KEY_DOC.id;

const ApiKeyType = builder.objectRef<ApiKeyRecord>("ApiKey").implement({
  description: API_KEY_TYPES_DOC.ApiKey,
  fields: (t) => ({
    id: t.exposeInt("id", { description: KEY_ID }),
    userId: t.exposeInt("userId", { description: `${KEY_DOC.userId} (REST user_id)` }),
    name: t.exposeString("name", { description: KEY_DOC.name }),
    comment: t.exposeString("comment", { nullable: true, description: KEY_DOC.comment }),
    scopes: t.exposeStringList("scopes", { description: KEY_DOC.scopes }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true, description: `${KEY_DOC.expiresAt} (REST expires_at)` }),
    disabled: t.exposeBoolean("disabled", { description: KEY_DOC.disabled }),
    adminDisabled: t.exposeBoolean("adminDisabled", { description: `${KEY_DOC.adminDisabled} (REST admin_disabled)` }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: `${KEY_DOC.lastUsedAt} (REST last_used_at)` }),
  }),
});

const CreatedApiKey = builder.objectRef<{ key: ApiKeyRecord; token: string }>("CreatedApiKey").implement({
  description: API_KEY_TYPES_DOC.CreatedApiKey,
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyType, description: "The key", resolve: (r) => r.key }),
    token: t.exposeString("token", { description: KEY_DOC.token }),
  }),
});

const CreateApiKeyInput = builder.inputType("CreateApiKeyInput", {
  description: "A new API key of the caller's (as POST /api-keys/)",
  fields: (t) => ({
    name: t.string({ required: true, description: KEY_DOC.name }),
    comment: t.string({ description: KEY_DOC.comment }),
    scopes: t.stringList({ required: true, description: KEY_DOC.scopes }),
    expiresAt: t.field({ type: "DateTime", description: KEY_DOC.expiresAt }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({ type: [ApiKeyType], description: "The caller's own keys", resolve: (_r, _a, ctx) => ctx.services.apiKeys.listOwn(caller(ctx)) }),
  adminApiKeys: t.field({
    type: [ApiKeyType],
    description: "List every user's API keys, optionally of one user (GET /admin/api-keys/)",
    args: { userId: t.arg.int({ description: "Only this user's keys (REST user_id)" }) },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.adminList(caller(ctx), contractInput(adminApiKeyListContract, a)),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: "Create an API key; the token is returned only in this response",
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: "The new key" }) },
    resolve: (_r, { input }, ctx) => ctx.services.apiKeys.create(caller(ctx), contractInput(createApiKeyContract, input)),
  }),
  setApiKeyDisabled: t.field({
    type: ApiKeyType,
    description: "Enable or disable your own key",
    args: { id: t.arg.int({ required: true, description: KEY_ID }), disabled: t.arg.boolean({ required: true, description: "True disables it, false enables it" }) },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.setDisabled(caller(ctx), a.id, contractInput(apiKeyToggleContract, { disabled: a.disabled })),
  }),
  deleteApiKey: t.boolean({
    description: "Delete your own key (refused while an administrator holds it); true when done",
    args: { id: t.arg.int({ required: true, description: KEY_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.apiKeys.deleteOwn(caller(ctx), a.id);
      return true;
    },
  }),
  adminSetApiKeyLocked: t.field({
    type: ApiKeyType,
    description: "Lock or unlock any user's key: the administrator's hold (REST disabled on /admin/api-keys/{key_id})",
    args: { id: t.arg.int({ required: true, description: KEY_ID }), locked: t.arg.boolean({ required: true, description: "True locks it, false releases the hold" }) },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.adminSetLocked(caller(ctx), a.id, contractInput(apiKeyLockContract, { locked: a.locked })),
  }),
  adminDeleteApiKey: t.boolean({
    description: "Delete any user's key; true when done",
    args: { id: t.arg.int({ required: true, description: KEY_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.apiKeys.adminDelete(caller(ctx), a.id);
      return true;
    },
  }),
}));
