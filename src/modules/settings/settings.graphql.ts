import { builder, caller } from "../../graphql/builder.ts";
import { requireUser } from "../../auth/principal.ts";
import { authorize } from "../../auth/principal.ts";
import { userSettingsTopic } from "./settings.service.ts";

const SettingsChange = builder.objectRef<{ namespace: string }>("UserSettingsChange").implement({
  fields: (t) => ({ namespace: t.exposeString("namespace") }),
});

builder.queryFields((t) => ({
  userSettings: t.field({
    type: "JSON",
    description: "All of the caller's own settings, keyed by namespace",
    resolve: (_r, _a, ctx) => ctx.services.settings.userSettings(caller(ctx)),
  }),
  userSetting: t.field({
    type: "JSON",
    nullable: true,
    args: { namespace: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.settings.userSetting(caller(ctx), a.namespace),
  }),
  runtimeSettings: t.field({ type: "JSON", resolve: (_r, _a, ctx) => ctx.services.settings.runtimeSettings(caller(ctx)) }),
  runtimeSetting: t.field({
    type: "JSON",
    args: { namespace: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.settings.runtimeSetting(caller(ctx), a.namespace),
  }),
}));

builder.mutationFields((t) => ({
  setUserSetting: t.field({
    type: "JSON",
    args: { namespace: t.arg.string({ required: true }), value: t.arg({ type: "JSON", required: true }) },
    resolve: (_r, a, ctx) => ctx.services.settings.setUserSetting(caller(ctx), a.namespace, a.value),
  }),
  deleteUserSetting: t.boolean({
    args: { namespace: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.settings.deleteUserSetting(caller(ctx), a.namespace);
      return true;
    },
  }),
  setRuntimeSetting: t.field({
    type: "JSON",
    args: { namespace: t.arg.string({ required: true }), value: t.arg({ type: "JSON", required: true }) },
    resolve: (_r, a, ctx) => ctx.services.settings.setRuntimeSetting(caller(ctx), a.namespace, a.value),
  }),
  resetRuntimeSetting: t.field({
    type: "JSON",
    args: { namespace: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.settings.resetRuntimeSetting(caller(ctx), a.namespace),
  }),
}));

builder.subscriptionFields((t) => ({
  userSettingsChanged: t.field({
    type: SettingsChange,
    description: "Fires when the caller's own settings change, from any session or process",
    subscribe: (_r, _a, ctx) => {
      const p = caller(ctx);
      authorize(p, "user_settings:read");
      requireUser(p);
      return ctx.pubsub.subscribe(userSettingsTopic(p.userId)) as AsyncIterable<{ namespace: string }>;
    },
    resolve: (change) => change,
  }),
}));
