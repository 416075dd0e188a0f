import { builder, caller } from "../../graphql/builder.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { adminApiKeyListContract, apiKeyLockContract, apiKeyToggleContract, createApiKeyContract } from "./api-keys.contracts.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { ApiKey } from "../../generated/prisma/client.ts";
import type { ApiKeyRecord } from "./api-keys.service.ts";
import { DOC } from "../../graphql/docs.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { API_KEY_DOC, API_KEY_TYPES_DOC } from "./api-keys.docs.ts";

const KEY_DOC = API_KEY_DOC;

/** The plugin types a key row as the whole model; the service's rows never hold the hash, and no field reads it. */
const asModel = <T extends ApiKeyRecord | ApiKeyRecord[]>(rows: T) => rows as unknown as T extends unknown[] ? ApiKey[] : ApiKey;
const KEY_ID = API_KEY_DOC.id;

/** Select mode: a key row holds the columns its fields expose, never the token hash (no field exposes it). */
const ApiKeyType = builder.prismaObject("ApiKey", {
  name: "ApiKey",
  description: API_KEY_TYPES_DOC.ApiKey,
  select: { id: true },
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

const ApiKeyPage = pageType("ApiKeyPage", ApiKeyType, "API keys");

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
  apiKeys: t.prismaField({ type: [ApiKeyType], description: "The caller's own keys", resolve: async (query, _r, _a, ctx) => asModel(await ctx.services.apiKeys.listOwn(caller(ctx), query)) }),
  apiKeyPage: t.field({
    extensions: cost.page("size", 20),
    type: ApiKeyPage,
    description: "The caller's own keys, newest first, page by page (apiKeys answers them all)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(20) }) },
    resolve: async (_r, a, ctx, info) => {
      const page = await ctx.services.apiKeys.ownPage(caller(ctx), checkPageSize(a, 20), queryFromInfo({ context: ctx, info, path: ["items"] }));
      return { ...page, items: asModel(page.items) };
    },
  }),
  adminApiKeyPage: t.field({
    extensions: cost.page("size", 20),
    type: ApiKeyPage,
    description: "Every user's API keys, optionally of one user, newest first, page by page (adminApiKeys answers them all)",
    args: { userId: t.arg.int({ description: "Only this user's keys (REST user_id)" }), page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(20) }) },
    resolve: async (_r, a, ctx, info) => {
      const page = await ctx.services.apiKeys.adminPage(caller(ctx), contractInput(adminApiKeyListContract, { userId: a.userId }), checkPageSize(a, 20), queryFromInfo({ context: ctx, info, path: ["items"] }));
      return { ...page, items: asModel(page.items) };
    },
  }),
  adminApiKeys: t.prismaField({
    type: [ApiKeyType],
    description: "List every user's API keys, optionally of one user (GET /admin/api-keys/)",
    args: { userId: t.arg.int({ description: "Only this user's keys (REST user_id)" }) },
    resolve: async (query, _r, a, ctx) => asModel(await ctx.services.apiKeys.adminList(caller(ctx), contractInput(adminApiKeyListContract, a), query)),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: "Create an API key; the token is returned only in this response",
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: "The new key" }) },
    resolve: (_r, { input }, ctx, info) =>
      ctx.services.apiKeys.create(caller(ctx), contractInput(createApiKeyContract, input), queryFromInfo({ context: ctx, info, path: ["apiKey"] })),
  }),
  setApiKeyDisabled: t.prismaField({
    type: ApiKeyType,
    description: "Enable or disable your own key",
    args: { id: t.arg.int({ required: true, description: KEY_ID }), disabled: t.arg.boolean({ required: true, description: "True disables it, false enables it" }) },
    resolve: async (query, _r, a, ctx) => asModel(await ctx.services.apiKeys.setDisabled(caller(ctx), a.id, contractInput(apiKeyToggleContract, { disabled: a.disabled }), query)),
  }),
  deleteApiKey: t.boolean({
    description: "Delete your own key (refused while an administrator holds it); true when done",
    args: { id: t.arg.int({ required: true, description: KEY_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.apiKeys.deleteOwn(caller(ctx), a.id);
      return true;
    },
  }),
  adminSetApiKeyLocked: t.prismaField({
    type: ApiKeyType,
    description: "Lock or unlock any user's key: the administrator's hold (REST disabled on /admin/api-keys/{key_id})",
    args: { id: t.arg.int({ required: true, description: KEY_ID }), locked: t.arg.boolean({ required: true, description: "True locks it, false releases the hold" }) },
    resolve: async (query, _r, a, ctx) => asModel(await ctx.services.apiKeys.adminSetLocked(caller(ctx), a.id, contractInput(apiKeyLockContract, { locked: a.locked }), query)),
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
