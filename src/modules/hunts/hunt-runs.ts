import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { AppError, errors } from "../../platform/errors.ts";
import { UpstreamError } from "../../integrations/http-json.ts";
import { notifyHuntResult } from "../notifications/index.ts";
import { readRuntimeSetting } from "../settings/index.ts";
import type { HuntEngine } from "./hunt-engine.ts";
import { alertFor, markNewHits, type Hit } from "./hit-keys.ts";
import {
  acquireRunLease,
  findHunt,
  lockForRecording,
  recordFailure,
  recordSuccess,
  releaseRunLease,
  type HuntRow,
  type HuntRunRow,
  type RecordedRun,
} from "./hunt-store.ts";

/** New hit keys named in an alert's payload (the count says how many there were in all). */
const MAX_ALERT_KEYS = 100;
/** A lease outlives its run's deadline by this much (the run has been cancelled by then). */
const LEASE_MARGIN_SECONDS = 60;

export type RunOutcome =
  | { status: "succeeded"; hunt: HuntRow; run: HuntRunRow; total: number; hits: Hit[] }
  | { status: "failed"; run: HuntRunRow; error: AppError }
  /** Another run of this hunt holds its lease: runs never overlap. */
  | { status: "busy" }
  /** The hunt was deleted, or its question changed, while it ran: nothing was recorded. */
  | { status: "discarded"; reason: string };

/** The scopes a run needs besides hunts:run: reading what it searches. */
export function readScopesOf(h: Pick<HuntRow, "huntType" | "indexTarget">): string[] {
  if (h.huntType === "search") return [`${h.indexTarget ?? "attributes"}:read`];
  if (h.huntType === "fw-attack-pattern") {
    return h.indexTarget === "attributes_and_events" ? ["events:read", "attributes:read"] : [`${h.indexTarget ?? "events"}:read`];
  }
  return [];
}

/**
 * Runs a hunt once as `runAs` (its owner, or their credential): takes the lease, asks the question
 * outside any transaction, then records the run in one transaction: history, cache and counters
 * for a success (with `is_new` against the previous result and the owner's alert), history and
 * reason only for a failure, so a failed run never replaces good results or alerts "0 results".
 */
export async function executeHunt(
  app: AppContext,
  engine: HuntEngine,
  huntId: number,
  runAs: Principal,
  run: Omit<RecordedRun, "durationMs">,
): Promise<RunOutcome> {
  const pool = app.db.pool;
  const settings = await readRuntimeSetting(pool, "hunts");
  const lease = await acquireRunLease(pool, huntId, settings.run_timeout_seconds + LEASE_MARGIN_SECONDS);
  if (!lease) return (await findHunt(pool, huntId)) ? { status: "busy" } : { status: "discarded", reason: "the hunt no longer exists" };
  const { token, hunt } = lease;
  const started = Date.now();
  // Recording a run releases the lease in the same statement; otherwise `finally` does.
  let released = false;
  try {
    authorize(runAs, "hunts:run", ...readScopesOf(hunt));
    let answer;
    try {
      answer = await engine.answer(runAs, hunt, settings, AbortSignal.timeout(settings.run_timeout_seconds * 1000));
    } catch (err) {
      const failure = asRunFailure(err);
      const recorded = await withTransaction(pool, async (client) =>
        (await lockForRecording(client, huntId, token)) ? recordFailure(client, huntId, { ...run, durationMs: Date.now() - started }, failure.message.slice(0, 2000)) : null,
      );
      if (!recorded) return { status: "discarded", reason: "the hunt was deleted while it ran" };
      released = true;
      if (!(err instanceof AppError || err instanceof UpstreamError)) throw err;
      return { status: "failed", run: recorded, error: failure };
    }
    const outcome = await withTransaction(pool, async (client): Promise<RunOutcome> => {
      const locked = await lockForRecording(client, huntId, token);
      if (!locked) return { status: "discarded", reason: "the hunt was deleted while it ran" };
      const { hunt: current, previousKeys } = locked;
      if (current.query !== hunt.query || current.huntType !== hunt.huntType || current.indexTarget !== hunt.indexTarget) {
        return { status: "discarded", reason: "the hunt's query changed while it ran; run it again" };
      }
      const marked = markNewHits(answer.hits, hunt.huntType, hunt.indexTarget, previousKeys);
      const recorded = await recordSuccess(client, huntId, { ...run, durationMs: Date.now() - started }, {
        total: answer.total,
        hits: marked.hits,
        keys: marked.keys,
        newHitCount: marked.newKeys.length,
      });
      const alert = alertFor({ matchCount: current.lastMatchCount, everMatched: current.firstMatchedAt !== null }, answer.total, marked.newKeys);
      if (alert) {
        // Without an earlier result set every hit is news to the owner.
        const news = previousKeys === null ? [...new Set(marked.keys)] : marked.newKeys;
        await notifyHuntResult(
          client,
          app.pubsub,
          {
            type: alert,
            ownerId: current.userId,
            huntId,
            runId: recorded.id,
            payload: {
              hunt_id: huntId,
              hunt_name: current.name,
              total: answer.total,
              previous_total: current.lastMatchCount,
              new_hits: news.slice(0, MAX_ALERT_KEYS),
              new_hit_count: news.length,
            },
          },
          { publicUrl: app.config.PUBLIC_URL },
        );
      }
      return { status: "succeeded", hunt: (await findHunt(client, huntId))!, run: recorded, total: answer.total, hits: marked.hits };
    });
    released = outcome.status === "succeeded";
    return outcome;
  } finally {
    if (!released) await releaseRunLease(pool, huntId, token).catch(() => undefined);
  }
}

/** What a failed run records and answers: catalogue errors as they are, external failures as 503. */
function asRunFailure(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof UpstreamError) return errors.upstreamUnavailable(err.message);
  return errors.internal();
}
