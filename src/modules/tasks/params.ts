import { errors } from "../../platform/errors.ts";

/**
 * For tasks that take no parameters. `kwargs.user_id` is tolerated: the peer adds it to every
 * schedule it stores; the run's user is the schedule's owner whatever it says.
 */
export function noParams(args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): void {
  if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes no arguments", args);
  const extra = Object.keys(kwargs).filter((k) => k !== "user_id");
  if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "this task takes no keyword arguments", kwargs[extra[0]]);
}
