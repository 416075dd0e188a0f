import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Logger } from "../../platform/logger.ts";
import type { TaskRunRow } from "./task-store.ts";

/** What a task's code gets for one attempt of a run. */
export interface TaskExecution {
  app: AppContext;
  /** The run's owner: their current role, intersected with the scopes granted when it was queued. */
  principal: Principal;
  run: TaskRunRow;
  log: Logger;
  /** Stored with the run, in its own statement or inside the caller's transaction (`sql`). */
  saveProgress(progress: Record<string, unknown>, sql?: Pick<import("pg").PoolClient, "query">): Promise<void>;
}

/** A task that can be scheduled or run by hand through /tasks (the registry lists them). */
export interface RegisteredTask {
  /** Short name; `app.worker.tasks.<name>` is accepted too (the peer's form). */
  name: string;
  description: string;
  /** Held by whoever schedules or runs it, and by the owner at each run. */
  requiredScopes: readonly string[];
  maxAttempts: number;
  /** graphile-worker queue: runs of one queue never overlap. */
  queueName?: string;
  /** Throws a 422 naming the bad argument (`loc` under `where`). */
  checkParams(args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): void;
  /** For tasks aimed at a record (a hunt): throws a 422 when it does not exist or the scheduler may not use it. */
  checkTarget?(app: AppContext, p: Principal, args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): Promise<void>;
  /** Returns the run's result (stored, shown by the job status route). */
  execute(x: TaskExecution): Promise<Record<string, unknown>>;
}
