import { errors } from "../../platform/errors.ts";

/**
 * The peer adds `kwargs.user_id` to every schedule it stores. It is tolerated, but a run always acts
 * as the schedule's owner: it must name the owner (or be absent), and no task ever sees it.
 */
const PEER_USER_ID = "user_id";

/** For tasks that take no parameters (`kwargs.user_id` aside). */
export function noParams(args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): void {
  if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes no arguments", args);
  const extra = Object.keys(kwargs).filter((k) => k !== PEER_USER_ID);
  if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "this task takes no keyword arguments", kwargs[extra[0]]);
}

/** The target check of a task that names no record: its admin-level `requiredScopes` say who may run it. */
export async function instanceWide(): Promise<void> {}

/** 422 when `kwargs.user_id` names anyone but the schedule's owner. */
export function checkPeerUserId(kwargs: Record<string, unknown>, ownerId: number | null, where: (string | number)[]): void {
  const named = kwargs[PEER_USER_ID];
  if (named !== undefined && String(named) !== String(ownerId)) {
    throw errors.invalidField([...where, "kwargs", PEER_USER_ID], "a task runs as the schedule's owner: user_id may only name them", named);
  }
}

/** The arguments a task's code sees. */
export function taskKwargs(kwargs: Record<string, unknown>): Record<string, unknown> {
  if (!(PEER_USER_ID in kwargs)) return kwargs;
  const { [PEER_USER_ID]: _ignored, ...rest } = kwargs;
  return rest;
}
