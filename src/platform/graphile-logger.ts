import { Logger as GraphileLogger } from "graphile-worker";
import type { Logger } from "./logger.ts";

/**
 * graphile-worker logs through pino like everything else. The success lines of `quietTasks` go to
 * debug: those tasks run on a timer whatever there is to do (the schedule tick), and log their own
 * line at info when they did something, so an idle service logs nothing per tick.
 */
export function graphileLogger(log: Logger, quietTasks: readonly string[] = []): GraphileLogger {
  const quiet = new Set(quietTasks);
  return new GraphileLogger((scope) => (level, message, meta) => {
    const child = log.child({ component: "jobs", ...scope, ...(meta ?? {}) });
    if (level === "error") child.error(message);
    else if (level === "warning") child.warn(message);
    else if (level === "info" && !isQuietSuccess(meta, quiet)) child.info(message);
    else child.debug(message);
  });
}

function isQuietSuccess(meta: Record<string, unknown> | undefined, quiet: Set<string>): boolean {
  if (meta?.success !== true) return false;
  const job = meta.job as { task_identifier?: unknown } | undefined;
  return typeof job?.task_identifier === "string" && quiet.has(job.task_identifier);
}
