import type { z } from "zod";
import { RUNTIME_SETTINGS, type RuntimeNamespace } from "./runtime-settings.schema.ts";
import { USER_SETTINGS, freeFormSetting, isKnownUserNamespace } from "./user-settings.schema.ts";

/**
 * The input contract of a settings write is its namespace's: a known user namespace
 * (user-settings.schema.ts) or any runtime namespace (runtime-settings.schema.ts) has its own
 * schema; other user namespaces stay free-form JSON objects. The service checks a new value with
 * it, naming the value's own keys (each adapter says where the value sits: REST's body,
 * GraphQL's `value` argument).
 */
export function userSettingContract(namespace: string): z.ZodType<Record<string, unknown>> {
  return isKnownUserNamespace(namespace) ? USER_SETTINGS[namespace] : freeFormSetting;
}

export function runtimeSettingContract(namespace: RuntimeNamespace): z.ZodType<Record<string, unknown>> {
  return RUNTIME_SETTINGS[namespace];
}
