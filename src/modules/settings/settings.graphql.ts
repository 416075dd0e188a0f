import { builder, caller } from "../../graphql/builder.ts";
import { requireUser } from "../../auth/principal.ts";
import { authorize } from "../../auth/principal.ts";
import { InputError } from "../../platform/errors.ts";
import { userSettingsTopic } from "./settings.service.ts";

/** The service names the value's own keys; here the value is the `value` argument. */
async function inValueArgument<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof InputError && !(err.issues[0]?.loc[0] === "namespace") ? err.within(["value"]) : err;
  }
}

/**
 * Settings stay JSON: each namespace has its own zod schema (user-settings.schema.ts,
 * runtime-settings.schema.ts), validated on write; typing every namespace here would be a second copy.
 */
const USER_NS = "A namespace of your settings (for example notifications, search, ui)";
const RUNTIME_NS = "A runtime-settings namespace (for example search, hunts, retention, mcp)";
const SETTINGS_JSON = "JSON: each namespace has its own schema, checked on write";

const SettingsChange = builder.objectRef<{ namespace: string }>("UserSettingsChange").implement({
  description: "Your settings changed",
  fields: (t) => ({ namespace: t.exposeString("namespace", { description: "The namespace that changed" }) }),
});

builder.queryFields((t) => ({
  userSettings: t.field({
    type: "JSON",
    description: `All of the caller's own settings, an object keyed by namespace (${SETTINGS_JSON})`,
    resolve: (_r, _a, ctx) => ctx.services.settings.userSettings(caller(ctx)),
  }),
  userSetting: t.field({
    type: "JSON",
    nullable: true,
    description: `One namespace of the caller's settings; null if never set (${SETTINGS_JSON})`,
    args: { namespace: t.arg.string({ required: true, description: USER_NS }) },
    resolve: (_r, a, ctx) => ctx.services.settings.userSetting(caller(ctx), a.namespace),
  }),
  runtimeSettings: t.field({ type: "JSON", description: `All runtime settings (defaults where unset), keyed by namespace (${SETTINGS_JSON})`, resolve: (_r, _a, ctx) => ctx.services.settings.runtimeSettings(caller(ctx)) }),
  runtimeSetting: t.field({
    type: "JSON",
    description: `One runtime-settings namespace, defaults where unset (${SETTINGS_JSON})`,
    args: { namespace: t.arg.string({ required: true, description: RUNTIME_NS }) },
    resolve: (_r, a, ctx) => ctx.services.settings.runtimeSetting(caller(ctx), a.namespace),
  }),
}));

builder.mutationFields((t) => ({
  setUserSetting: t.field({
    type: "JSON",
    description: "Replace one namespace of the caller's settings; answers the stored value",
    args: { namespace: t.arg.string({ required: true, description: USER_NS }), value: t.arg({ type: "JSON", required: true, description: `The namespace's new value (${SETTINGS_JSON})` }) },
    resolve: (_r, a, ctx) => inValueArgument(() => ctx.services.settings.setUserSetting(caller(ctx), a.namespace, a.value)),
  }),
  deleteUserSetting: t.boolean({
    description: "Delete one namespace of the caller's settings; true when done",
    args: { namespace: t.arg.string({ required: true, description: USER_NS }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.settings.deleteUserSetting(caller(ctx), a.namespace);
      return true;
    },
  }),
  setRuntimeSetting: t.field({
    type: "JSON",
    description: "Replace a runtime-settings namespace (validated); answers the stored value",
    args: { namespace: t.arg.string({ required: true, description: RUNTIME_NS }), value: t.arg({ type: "JSON", required: true, description: `The namespace's new value (${SETTINGS_JSON})` }) },
    resolve: (_r, a, ctx) => inValueArgument(() => ctx.services.settings.setRuntimeSetting(caller(ctx), a.namespace, a.value)),
  }),
  resetRuntimeSetting: t.field({
    type: "JSON",
    description: "Reset a runtime-settings namespace to its defaults; answers them",
    args: { namespace: t.arg.string({ required: true, description: RUNTIME_NS }) },
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
