/** The settings area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { readRuntimeSetting, runtimeSettingOf } from "./runtime-settings.reader.ts";
export { RUNTIME_DEFAULTS, RUNTIME_SETTINGS } from "./runtime-settings.schema.ts";
export type { RuntimeSettingValue } from "./runtime-settings.schema.ts";
export { runtimeSettingContract, userSettingContract } from "./settings.contracts.ts";
export { SettingsService, userSettingsTopic } from "./settings.service.ts";
export { MAX_FOLLOWS_PER_LIST, USER_SETTINGS, freeFormSetting } from "./user-settings.schema.ts";
