const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDateTime(iso: string): string {
  return DATE_TIME.format(new Date(iso));
}

/** "Daily, next run …", "Custom (cron)", "Not scheduled". */
export function scheduleLabel(schedule: string | null | undefined, nextRunAt: string | null | undefined): string {
  if (!schedule) return "Not scheduled";
  const name = schedule === "custom" ? "Custom (cron)" : schedule.charAt(0).toUpperCase() + schedule.slice(1);
  return nextRunAt ? `${name}, next ${formatDateTime(nextRunAt)}` : `${name}, paused`;
}
