import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { errors } from "../../platform/errors.ts";
import { readRuntimeSetting } from "../settings/index.ts";
import { RUNTIME_SETTINGS } from "../settings/index.ts";
import type { EventView } from "../events/index.ts";
import { countCandidates } from "./retention-store.ts";
import { retentionBadge, retentionCutoff, type RetentionBadge, type RetentionStatus } from "./retention-policy.ts";

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class RetentionService {
  constructor(private readonly ctx: AppContext) {}

  /** The spec's four fields (4.5): the purge of soft-deleted events is an administrator's setting. */
  async status(p: Principal | null): Promise<RetentionStatus> {
    authorize(p, "events:read");
    const { enabled, period_days, warning_days, exempt_tags } = await readRuntimeSetting(this.ctx.db.pool, "retention");
    return { enabled, period_days, warning_days, exempt_tags };
  }

  /**
   * How many events the next enforcement would delete with `periodDays` (default: the configured
   * period) and the configured exempt tags, across all organisations (as enforcement is).
   */
  async preview(p: Principal | null, periodDays: number | undefined): Promise<{ count: number; period_days: number }> {
    authorize(p, "settings:read");
    const settings = await readRuntimeSetting(this.ctx.db.pool, "retention");
    const period = periodDays ?? settings.period_days;
    const bounds = RUNTIME_SETTINGS.retention.shape.period_days.safeParse(period);
    if (!bounds.success) throw errors.invalidInput(["periodDays"], "must be an integer from 1 to 36500", period);
    const count = await countCandidates(this.ctx.db.pool, retentionCutoff(period, nowSeconds()), settings.exempt_tags);
    return { count, period_days: period };
  }

  /** The badge rule as configured now (one settings read), for events read elsewhere (GraphQL). */
  async badgeRule(): Promise<(timestamp: number, tagNames: string[]) => RetentionBadge | null> {
    const settings = await readRuntimeSetting(this.ctx.db.pool, "retention");
    const now = nowSeconds();
    return (timestamp, tagNames) => retentionBadge(settings, timestamp, tagNames, now);
  }

  /** Sets each event's retention badge (one settings read for the lot). */
  async withBadges<T extends EventView>(events: T[]): Promise<T[]> {
    const settings = await readRuntimeSetting(this.ctx.db.pool, "retention");
    const now = nowSeconds();
    for (const e of events) e.retention = retentionBadge(settings, e.timestamp, e.tags.map((t) => t.name), now);
    return events;
  }
}
