import type { Task } from "graphile-worker";
import type { AppContext } from "../../app-context.ts";
import { hasScope, type Principal } from "../../auth/principal.ts";
import { runAsPrincipal } from "../../auth/run-as.ts";
import { AppError, errors } from "../../platform/errors.ts";
import { taskKwargs } from "../../modules/tasks/index.ts";
import type { RegisteredTask, TaskServices } from "../../modules/tasks/index.ts";
import { taskNamed } from "../../modules/tasks/index.ts";
import { finishRun, requeueRun, saveRunProgress, startRunAttempt, type TaskRunRow } from "../../modules/tasks/index.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Executes one task run (graphile-worker retries a failed attempt up to the task's max attempts).
 * The run's status follows: running, then succeeded, queued again for a retry, or failed. Failures
 * a retry cannot mend (the user is gone or lost a scope, a 4xx from the task) fail at once.
 * Each attempt starts by authorizing again, as the owner with their rights of now: the task's scopes,
 * then its target (the record the arguments name may be gone, moved or out of the owner's reach).
 */
export function runTaskJob(app: AppContext, services: TaskServices): Task {
  return async (payload, helpers) => {
    const runId = (payload as { run_id?: unknown } | null)?.run_id;
    if (typeof runId !== "string" || !UUID.test(runId)) return;
    const pool = app.db.pool;
    const started = await startRunAttempt(pool, runId, helpers.job.attempts);
    if (!started) return;
    const run = { ...started, kwargs: taskKwargs(started.kwargs) };
    const log = app.log.child({ run_id: run.id, task: run.task });
    const task = taskNamed(run.task);
    if (!task) return finishRun(pool, run.id, "failed", null, `task ${run.task} is no longer registered`);
    const principal = await runAsPrincipal(pool, run.runAsUserId, run.grantScopes);
    if (!principal) return finishRun(pool, run.id, "failed", null, "the user this task runs as no longer exists or is disabled");
    const missing = task.requiredScopes.filter((s) => !hasScope(principal, s));
    if (missing.length) return finishRun(pool, run.id, "failed", null, `the user this task runs as lacks ${missing.join(", ")}`);
    try {
      await checkTargetAsOwner(app, task, principal, run);
      const result = await task.execute({ app, services, principal, run, log, saveProgress: (p, sql = pool) => saveRunProgress(sql, run.id, p) });
      await finishRun(pool, run.id, "succeeded", result, null);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if ((err instanceof AppError && err.status < 500) || helpers.job.attempts >= helpers.job.max_attempts) {
        log.warn({ err }, "task run failed");
        return finishRun(pool, run.id, "failed", null, message.slice(0, 2000));
      }
      await requeueRun(pool, run.id, message.slice(0, 2000));
      throw err;
    }
  };
}

/** A refused target fails the run at once, saying so. */
async function checkTargetAsOwner(app: AppContext, task: RegisteredTask, principal: Principal, run: TaskRunRow): Promise<void> {
  try {
    await task.checkTarget(app, principal, run.args, run.kwargs, []);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw errors.forbidden(`the task's target is not available to the user this task runs as: ${err.message}`);
    throw err;
  }
}
