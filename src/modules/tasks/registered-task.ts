import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Logger } from "../../platform/logger.ts";
import type { AuditService } from "../audit/index.ts";
import type { EventsService } from "../events/index.ts";
import type { HuntEngine } from "../hunts/index.ts";
import type { TaskRunRow } from "./task-store.ts";

/** The services tasks call, built once with all the others (src/services.ts). */
export interface TaskServices {
  audit: AuditService;
  events: EventsService;
  huntEngine: HuntEngine;
}

/** What a task's code gets for one attempt of a run. */
export interface TaskExecution {
  app: AppContext;
  services: TaskServices;
  /** The run's owner: their current role, intersected with the scopes granted when it was queued. */
  principal: Principal;
  /** Its kwargs without the peer's `user_id`: a run acts as its owner, never as whom the arguments name. */
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
  /** Held by whoever schedules or runs it, and by the owner at each run. Instance-wide tasks need an admin-level one. */
  requiredScopes: readonly string[];
  maxAttempts: number;
  /** graphile-worker queue: runs of one queue never overlap. */
  queueName?: string;
  /** Throws a 422 naming the bad argument (`loc` under `where`). */
  checkParams(args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): void;
  /**
   * Authorizes what a run would touch, as `p`: throws a 4xx naming the argument (`loc` under `where`)
   * when the record the arguments name does not exist or `p` may not use it. Called when the task is
   * scheduled, when its arguments change, on "run now", and at the start of every run as the run's
   * principal (the owner's current rights), which fails the run with the reason. Every task has
   * one: a task that names no record is `instanceWide` (params.ts), and the registry then requires
   * an admin-level scope among its `requiredScopes`.
   */
  checkTarget(app: AppContext, p: Principal, args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): Promise<void>;
  /** Returns the run's result (stored, shown by the job status route). */
  execute(x: TaskExecution): Promise<Record<string, unknown>>;
}
