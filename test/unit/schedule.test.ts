import { describe, expect, it } from "vitest";
import { describeSchedule, nextRun, nextRunAfter, validateSchedule, type Schedule } from "../../src/modules/tasks/schedule.ts";

const cron = (fields: Partial<Extract<Schedule, { type: "crontab" }>>): Schedule => ({
  type: "crontab",
  minute: "*",
  hour: "*",
  day_of_week: "*",
  day_of_month: "*",
  month_of_year: "*",
  timezone: null,
  ...fields,
});
const at = (iso: string) => new Date(iso);

describe("nextRun / nextRunAfter", () => {
  it("intervals count from now for a new schedule and keep their cadence after a run", () => {
    const s: Schedule = { type: "interval", every: 10, period: "minutes" };
    expect(nextRun(s, at("2026-01-01T00:00:00Z"))).toEqual(at("2026-01-01T00:10:00Z"));
    // Fired 2 s late: the next is still on the cadence.
    expect(nextRunAfter(s, at("2026-01-01T00:10:00Z"), at("2026-01-01T00:10:02Z"))).toEqual(at("2026-01-01T00:20:00Z"));
  });

  it("after a downtime of many intervals, the next run is the first cadence point after now (one catch-up run, not one per missed tick)", () => {
    const s: Schedule = { type: "interval", every: 1, period: "hours" };
    expect(nextRunAfter(s, at("2026-01-01T00:00:00Z"), at("2026-01-01T05:30:00Z"))).toEqual(at("2026-01-01T06:00:00Z"));
    expect(nextRunAfter(s, at("2026-01-01T00:00:00Z"), at("2026-01-01T06:00:00Z"))).toEqual(at("2026-01-01T07:00:00Z"));
  });

  it("crontabs: UTC by default, a time zone across a DST change, weekdays and day-of-month AND day-of-week", () => {
    expect(nextRun(cron({ minute: "0", hour: "2" }), at("2026-01-01T03:00:00Z"))).toEqual(at("2026-01-02T02:00:00Z"));
    // 02:30 Berlin: CET (UTC+1) in March before the 29th, CEST (UTC+2) after.
    expect(nextRun(cron({ minute: "30", hour: "3", timezone: "Europe/Berlin" }), at("2026-03-27T12:00:00Z"))).toEqual(at("2026-03-28T02:30:00Z"));
    expect(nextRun(cron({ minute: "30", hour: "3", timezone: "Europe/Berlin" }), at("2026-03-29T12:00:00Z"))).toEqual(at("2026-03-30T01:30:00Z"));
    expect(nextRun(cron({ minute: "*/15", day_of_week: "mon-fri" }), at("2026-01-03T03:00:00Z"))).toEqual(at("2026-01-05T00:00:00Z"));
    // Friday the 13th (both must match, as in Celery).
    expect(nextRun(cron({ minute: "0", hour: "0", day_of_month: "13", day_of_week: "fri" }), at("2026-01-01T00:00:00Z"))).toEqual(at("2026-02-13T00:00:00Z"));
  });

  it("describes schedules in one line", () => {
    expect(describeSchedule({ type: "interval", every: 2, period: "days" })).toBe("every 2 days");
    expect(describeSchedule(cron({ minute: "0", hour: "2" }))).toBe("cron 0 2 * * * (UTC)");
  });
});

describe("validateSchedule", () => {
  const locOf = (s: Schedule) => {
    try {
      validateSchedule(s, ["body", s.type]);
      return null;
    } catch (err) {
      return (err as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
    }
  };
  it.each([
    [{ type: "interval", every: 0, period: "seconds" }, ["body", "interval", "every"]],
    [{ type: "interval", every: 11 * 366, period: "days" }, ["body", "interval", "every"]],
    [cron({ minute: "60" }), ["body", "crontab", "minute"]],
    [cron({ hour: "24" }), ["body", "crontab", "hour"]],
    [cron({ day_of_month: "0" }), ["body", "crontab", "day_of_month"]],
    [cron({ month_of_year: "jan-foo" }), ["body", "crontab", "month_of_year"]],
    [cron({ day_of_week: "L" }), ["body", "crontab", "day_of_week"]],
    [cron({ minute: "?" }), ["body", "crontab", "minute"]],
    [cron({ minute: "" }), ["body", "crontab", "minute"]],
    [cron({ timezone: "../../etc/passwd" }), ["body", "crontab", "timezone"]],
  ] as [Schedule, unknown[]][])("%j is refused at %j", (s, loc) => {
    expect(locOf(s)).toContainEqual(loc);
  });

  it("accepts the common shapes", () => {
    for (const s of [
      { type: "interval", every: 1, period: "seconds" },
      cron({}),
      cron({ minute: "0,30", hour: "9-17", day_of_week: "1-5" }),
      cron({ minute: "5", hour: "4", day_of_month: "1", month_of_year: "jan,jul", timezone: "America/New_York" }),
    ] as Schedule[]) {
      expect(locOf(s)).toBeNull();
    }
  });
});
