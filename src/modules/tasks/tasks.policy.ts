import { isAdmin, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may see and change scheduled tasks and task runs, for every entry point: a schedule is its
 * creator's (others are told it does not exist), a run is visible to the user it runs as and to the
 * owner of its schedule; administrators see all. What a task may do to its target is each task's own
 * check (`RegisteredTask.checkTarget`), asked when it is scheduled and when each run starts.
 */
export function canManageSchedule(p: Principal, schedule: { ownerId: number | null }): boolean {
  return isAdmin(p) || (p.userId !== null && schedule.ownerId === p.userId);
}

export function canSeeRun(p: Principal, run: { runAsUserId: number | null }, scheduleOwnerId: number | null): boolean {
  return isAdmin(p) || (p.userId !== null && (run.runAsUserId === p.userId || scheduleOwnerId === p.userId));
}

/** Whose schedules and runs a listing shows: null for every user's. */
export function listedOwner(p: Principal): number | null {
  return isAdmin(p) ? null : (p.userId ?? -1);
}

/** The schedules `p` sees, as a query's where (canManageSchedule's rule). */
export function visibleScheduleWhere(p: Principal): Prisma.ScheduledTaskWhereInput {
  const owner = listedOwner(p);
  return owner === null ? {} : { ownerId: owner };
}

/** The runs `p` sees, as a query's where (canSeeRun's rule), given the ids of the schedules `p` owns. */
export function visibleRunWhere(p: Principal, ownedScheduleIds: string[]): Prisma.TaskRunWhereInput {
  const owner = listedOwner(p);
  return owner === null ? {} : { OR: [{ runAsUserId: owner }, { scheduledTaskId: { in: ownedScheduleIds } }] };
}
