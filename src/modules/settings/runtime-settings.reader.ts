import type { Sql } from "../../platform/db/transaction.ts";
import { RUNTIME_DEFAULTS, RUNTIME_SETTINGS, type RuntimeNamespace, type RuntimeSettingValue } from "./runtime-settings.schema.ts";

/** A runtime namespace as jobs and services read it: the stored value, or its defaults. */
export async function readRuntimeSetting<N extends RuntimeNamespace>(sql: Sql, namespace: N): Promise<RuntimeSettingValue<N>> {
  const { rows } = await sql.query<{ value: unknown }>("SELECT value FROM runtime_settings WHERE namespace = $1", [namespace]);
  return runtimeSettingOf(namespace, rows[0]?.value);
}

/** A stored value (or undefined when none is stored) as its namespace's settings; defaults when unusable. */
export function runtimeSettingOf<N extends RuntimeNamespace>(namespace: N, stored: unknown): RuntimeSettingValue<N> {
  if (stored === undefined || stored === null) return RUNTIME_DEFAULTS[namespace];
  const parsed = RUNTIME_SETTINGS[namespace].safeParse(stored);
  return (parsed.success ? parsed.data : RUNTIME_DEFAULTS[namespace]) as RuntimeSettingValue<N>;
}
