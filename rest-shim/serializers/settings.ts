import { z } from "zod";
import { RUNTIME_SETTINGS } from "../../src/modules/settings/index.ts";
import { USER_SETTINGS, freeFormSetting } from "../../src/modules/settings/index.ts";
import { named } from "../contract.ts";

export const UserSettingsSchema = named(
  "UserSettings",
  z.object(USER_SETTINGS).partial().catchall(freeFormSetting),
  "The caller's settings by namespace: notifications and explore are validated, any other namespace (UI preferences) is a free-form object",
);

export const RuntimeSettingsSchema = named(
  "RuntimeSettings",
  z.object(RUNTIME_SETTINGS),
  "Every runtime-settings namespace, with its defaults where unset",
);

export const SettingNamespaceSchema = named(
  "SettingNamespace",
  z.record(z.string(), z.unknown()),
  "One namespace as `{<namespace>: <value>}`; the value's shape is the namespace's (see UserSettings and RuntimeSettings)",
);

export const SettingChangedSchema = named(
  "SettingChanged",
  z.object({ message: z.string() }).catchall(z.unknown()),
  "A confirmation, with the namespace's new value under its name (`{message, <namespace>: <value>}`)",
);
