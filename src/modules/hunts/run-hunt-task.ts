import { runAsPrincipal } from "../../auth/run-as.ts";
import { errors } from "../../platform/errors.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { RUN_HUNT_TASK } from "./hunt-schedule.ts";
import { executeHunt } from "./hunt-runs.ts";
import { findHunt } from "./hunt-store.ts";
import { canManageHunt } from "./hunts.policy.ts";

/**
 * Task `run_hunt` (kwargs `hunt_id`): a scheduled run of a hunt. Paused hunts are skipped (spec
 * 2.2; the peer runs them anyway), as is a hunt whose previous run is still going. A failed run is
 * in the hunt's history with its reason and fails the task run too. One attempt: the external
 * calls retry by themselves, and a retried task would record the same failure twice.
 */
export const runHuntTask: RegisteredTask = {
  name: RUN_HUNT_TASK,
  description: "Run a hunt (kwargs: hunt_id); paused hunts are skipped.",
  requiredScopes: ["hunts:run"],
  maxAttempts: 1,
  checkParams(args, kwargs, where) {
    if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes keyword arguments only", args);
    const extra = Object.keys(kwargs).filter((k) => k !== "hunt_id" && k !== "user_id");
    if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "unknown keyword argument", kwargs[extra[0]]);
    const id = kwargs.hunt_id;
    if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > 2_147_483_647) throw errors.invalidField([...where, "kwargs", "hunt_id"], "must be a hunt id", id);
  },
  /** A hunt of the caller's (administrators: anyone's), as every hunt route decides. */
  async checkTarget(app, p, _args, kwargs, where) {
    const hunt = await findHunt(app.db.pool, kwargs.hunt_id as number);
    if (!hunt || !canManageHunt(p, hunt)) throw errors.invalidField([...where, "kwargs", "hunt_id"], "no such hunt of yours", kwargs.hunt_id);
  },
  /** The run's principal passed checkTarget when the run started. */
  async execute({ app, services, principal, run }) {
    const huntId = run.kwargs.hunt_id as number;
    const hunt = await findHunt(app.db.pool, huntId);
    if (!hunt) throw errors.notFound("Hunt");
    if (hunt.status === "paused") return { hunt_id: huntId, skipped: "the hunt is paused" };
    const runAs = hunt.userId === principal.userId ? principal : await runAsPrincipal(app.db.pool, hunt.userId, ["*"]);
    if (!runAs) throw errors.conflict("the hunt's owner no longer exists or is disabled");
    const outcome = await executeHunt(app, services.huntEngine, huntId, runAs, { trigger: "schedule", taskRunId: run.id });
    switch (outcome.status) {
      case "succeeded":
        return { hunt_id: huntId, hunt_run_id: outcome.run.id, total: outcome.total, new_hits: outcome.run.newHitCount };
      case "failed":
        throw outcome.error;
      case "busy":
        return { hunt_id: huntId, skipped: "a run of this hunt is in progress" };
      case "discarded":
        return { hunt_id: huntId, skipped: outcome.reason };
    }
  },
};
