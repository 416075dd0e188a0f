import type { CombinedError } from "urql";

interface Issue {
  loc?: unknown[];
  msg?: string;
}

/**
 * The API's 422 messages by field: each issue of `extensions.detail` keyed by the last name in its
 * `loc` (["args", "input", "value"] → "value"), so a form shows each message at its field.
 */
export function fieldErrors(error: CombinedError | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of error?.graphQLErrors ?? []) {
    const detail = (e.extensions as { detail?: unknown } | undefined)?.detail;
    if (!Array.isArray(detail)) continue;
    for (const issue of detail as Issue[]) {
      const field = [...(issue.loc ?? [])].reverse().find((l): l is string => typeof l === "string" && !/^\d+$/.test(l));
      if (field && issue.msg && !out[field]) out[field] = issue.msg;
    }
  }
  return out;
}
