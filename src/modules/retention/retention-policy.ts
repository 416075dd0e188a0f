import type { RuntimeSettingValue } from "../settings/index.ts";

export type RetentionSettings = RuntimeSettingValue<"retention">;
/** GET /events/retention/status: the spec's fields (4.5). */
export type RetentionStatus = Pick<RetentionSettings, "enabled" | "period_days" | "warning_days" | "exempt_tags">;

const DAY = 86_400;

/** Events whose last change (epoch seconds) is before this are past retention. */
export function retentionCutoff(periodDays: number, nowSeconds: number): number {
  return nowSeconds - periodDays * DAY;
}

/**
 * What a UI shows on an event: `expired` (the next enforcement deletes it) or `expiring` within
 * `warning_days`, with the days left (0 or less once expired). Null when retention is disabled, the
 * event carries an exempt tag, or expiry is further away than the warning.
 */
export interface RetentionBadge {
  status: "expired" | "expiring";
  expires_in_days: number;
}

export function retentionBadge(s: RetentionSettings, eventTimestamp: number, tagNames: readonly string[], nowSeconds: number): RetentionBadge | null {
  if (!s.enabled || tagNames.some((t) => s.exempt_tags.includes(t))) return null;
  const secondsLeft = eventTimestamp - retentionCutoff(s.period_days, nowSeconds);
  if (secondsLeft <= 0) return { status: "expired", expires_in_days: Math.ceil(secondsLeft / DAY) };
  const days = Math.ceil(secondsLeft / DAY);
  return days <= s.warning_days ? { status: "expiring", expires_in_days: days } : null;
}
