import { builder, caller } from "../../graphql/builder.ts";
import { errors } from "../../platform/errors.ts";
import type { ApiKeyRecord } from "./api-keys.service.ts";

const ApiKeyType = builder.objectRef<ApiKeyRecord>("ApiKey").implement({
  description: "An API key as its owner and administrators see it: never the token or its hash",
  fields: (t) => ({
    id: t.exposeInt("id"),
    userId: t.exposeInt("userId"),
    name: t.exposeString("name"),
    comment: t.exposeString("comment", { nullable: true }),
    scopes: t.exposeStringList("scopes"),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    disabled: t.exposeBoolean("disabled"),
    adminDisabled: t.exposeBoolean("adminDisabled"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true }),
  }),
});

const CreatedApiKey = builder.objectRef<{ key: ApiKeyRecord; token: string }>("CreatedApiKey").implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyType, resolve: (r) => r.key }),
    token: t.exposeString("token", { description: "The raw 40-hex secret. Shown once: store it now." }),
  }),
});

const CreateApiKeyInput = builder.inputType("CreateApiKeyInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    comment: t.string(),
    scopes: t.stringList({ required: true }),
    expiresAt: t.field({ type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({ type: [ApiKeyType], description: "The caller's own keys", resolve: (_r, _a, ctx) => ctx.services.apiKeys.listOwn(caller(ctx)) }),
  adminApiKeys: t.field({
    type: [ApiKeyType],
    args: { userId: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.adminList(caller(ctx), a.userId ?? undefined),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const name = input.name.trim();
      if (!name || name.length > 255) throw errors.invalidField(["input", "name"], "must be 1 to 255 characters");
      if (input.comment && input.comment.length > 2000) throw errors.invalidField(["input", "comment"], "must be at most 2000 characters");
      if (input.scopes.length > 200) throw errors.invalidField(["input", "scopes"], "at most 200 scopes");
      return ctx.services.apiKeys.create(caller(ctx), { name, comment: input.comment, scopes: input.scopes, expiresAt: input.expiresAt });
    },
  }),
  setApiKeyDisabled: t.field({
    type: ApiKeyType,
    args: { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.setDisabled(caller(ctx), a.id, a.disabled),
  }),
  deleteApiKey: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.apiKeys.deleteOwn(caller(ctx), a.id);
      return true;
    },
  }),
  adminSetApiKeyLocked: t.field({
    type: ApiKeyType,
    args: { id: t.arg.int({ required: true }), locked: t.arg.boolean({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.apiKeys.adminSetLocked(caller(ctx), a.id, a.locked),
  }),
  adminDeleteApiKey: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.apiKeys.adminDelete(caller(ctx), a.id);
      return true;
    },
  }),
}));
