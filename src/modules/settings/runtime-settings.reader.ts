import type { Sql } from "../../platform/db/transaction.ts";
import { RUNTIME_DEFAULTS, RUNTIME_SETTINGS, type RuntimeNamespace, type RuntimeSettingValue } from "./runtime-settings.schema.ts";

/** A runtime namespace as jobs and services read it: the stored value, or its defaults. */
export async function readRuntimeSetting<N extends RuntimeNamespace>(sql: Sql, namespace: N): Promise<RuntimeSettingValue<N>> {
  const { rows } = await sql.query<{ value: unknown }>("SELECT value FROM runtime_settings WHERE namespace = $1", [namespace]);
  if (!rows[0]) return RUNTIME_DEFAULTS[namespace];
  const parsed = RUNTIME_SETTINGS[namespace].safeParse(rows[0].value);
  return (parsed.success ? parsed.data : RUNTIME_DEFAULTS[namespace]) as RuntimeSettingValue<N>;
}
