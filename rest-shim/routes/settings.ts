import { z } from "zod";
import { messageSchema } from "../contract.ts";
import { defineRoute } from "../route.ts";
import { RuntimeSettingsSchema, SettingChangedSchema, SettingNamespaceSchema, UserSettingsSchema } from "../serializers/settings.ts";

const ns = z.object({ namespace: z.string().max(100) }).strict();
const anyObject = z.record(z.string(), z.unknown());

export const settingsRoutes = [
  defineRoute({
    method: "GET", path: "/settings/user", operationId: "listUserSettings", summary: "All of the caller's own settings, by namespace", tag: "settings",
    scopes: ["user_settings:read"], status: 200, response: UserSettingsSchema,
    handler: ({ principal, services }) => services.settings.userSettings(principal),
  }),
  defineRoute({
    method: "GET", path: "/settings/user/{namespace}", operationId: "getUserSetting", summary: "One namespace of the caller's settings", tag: "settings",
    scopes: ["user_settings:read"], params: ns, status: 200, response: SettingNamespaceSchema,
    handler: async ({ principal, params, services }) => ({ [params.namespace]: await services.settings.userSetting(principal, params.namespace) }),
  }),
  defineRoute({
    method: "POST", path: "/settings/user/{namespace}", operationId: "setUserSetting", summary: "Replace one namespace of the caller's settings", tag: "settings",
    scopes: ["user_settings:update"], params: ns, body: anyObject, bodyLimit: 2 * 1024 * 1024, status: 200, response: SettingChangedSchema,
    handler: async ({ principal, params, body, services }) => {
      const value = await services.settings.setUserSetting(principal, params.namespace, body);
      return { message: "User setting updated", [params.namespace]: value };
    },
  }),
  defineRoute({
    method: "DELETE", path: "/settings/user/{namespace}", operationId: "deleteUserSetting", summary: "Delete one namespace of the caller's settings", tag: "settings",
    scopes: ["user_settings:update"], params: ns, status: 200, response: messageSchema,
    handler: async ({ principal, params, services }) => {
      await services.settings.deleteUserSetting(principal, params.namespace);
      return { message: "User setting deleted" };
    },
  }),
  defineRoute({
    method: "GET", path: "/settings/runtime", operationId: "listRuntimeSettings", summary: "All runtime settings (defaults where unset)", tag: "settings",
    scopes: ["settings:read"], status: 200, response: RuntimeSettingsSchema,
    handler: ({ principal, services }) => services.settings.runtimeSettings(principal),
  }),
  defineRoute({
    method: "GET", path: "/settings/runtime/{namespace}", operationId: "getRuntimeSetting", summary: "One runtime-settings namespace", tag: "settings",
    scopes: ["settings:read"], params: ns, status: 200, response: SettingNamespaceSchema,
    handler: async ({ principal, params, services }) => ({ [params.namespace]: await services.settings.runtimeSetting(principal, params.namespace) }),
  }),
  defineRoute({
    method: "POST", path: "/settings/runtime/{namespace}", operationId: "setRuntimeSetting", summary: "Replace a runtime-settings namespace (validated)", tag: "settings",
    scopes: ["settings:update"], params: ns, body: anyObject, status: 200, response: SettingChangedSchema,
    handler: async ({ principal, params, body, services }) => {
      const value = await services.settings.setRuntimeSetting(principal, params.namespace, body);
      return { message: "Setting updated", [params.namespace]: value };
    },
  }),
  defineRoute({
    method: "DELETE", path: "/settings/runtime/{namespace}", operationId: "resetRuntimeSetting", summary: "Reset a runtime-settings namespace to its defaults", tag: "settings",
    scopes: ["settings:delete"], params: ns, status: 200, response: SettingChangedSchema,
    handler: async ({ principal, params, services }) => {
      const value = await services.settings.resetRuntimeSetting(principal, params.namespace);
      return { message: "Setting deleted", [params.namespace]: value };
    },
  }),
];
