import { serverTaskCases } from "./servers.cases.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * One row per registered task. B's org admin schedules it with A's ids in its kwargs (a targeted
 * task: 422 naming the argument, or 404) or, for an instance-wide task, without the admin-level
 * scope it needs (403). Then a schedule of B's org admin naming A's resource is stored as if it
 * predated the checks (or its target moved since), run now and fired by the ticker: each run must
 * fail with its reason, as its owner with the owner's current rights, and change nothing of A's.
 */
export interface TaskCase {
  task: string;
  kwargs(w: CrossOrgWorld): Record<string, unknown>;
  /** What B's org admin's POST /tasks/schedule answers. */
  refusedWith: number[];
  /**
   * Makes a run that slipped through harmful to A (so the snapshot would show it); returns the undo.
   */
  arrange?(w: CrossOrgWorld): Promise<() => Promise<void>>;
}

export const taskCases: TaskCase[] = [
  { task: "fetch_feed", kwargs: (w) => ({ feed_id: w.a.networkFeed.id }), refusedWith: [404, 422] },
  { task: "run_hunt", kwargs: (w) => ({ hunt_id: w.a.hunt.id }), refusedWith: [404, 422] },
  { task: "run_export", kwargs: (w) => ({ export_id: w.a.export.id }), refusedWith: [404, 422] },
  { task: "generate_correlations", kwargs: () => ({}), refusedWith: [403] },
  { task: "purge_deleted", kwargs: () => ({}), refusedWith: [403] },
  {
    task: "enforce_retention",
    kwargs: () => ({}),
    refusedWith: [403],
    // With retention on and a one-day period, a run would purge A's shared event (timestamp 2023).
    async arrange(w) {
      await w.call("site", "POST", "/settings/runtime/retention", { enabled: true, period_days: 1, warning_days: 0, exempt_tags: [] });
      return async () => void (await w.call("site", "DELETE", "/settings/runtime/retention"));
    },
  },
  ...serverTaskCases,
];
