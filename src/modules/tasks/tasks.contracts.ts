import { z } from "zod";
import { scheduleContract } from "./schedule-contract.ts";
import { SCHEDULED_TASK_DOC, TASK_DOC } from "./tasks.docs.ts";

/**
 * The input contracts of scheduled-task writes, in the service's vocabulary: the service checks its
 * input with them (REST, GraphQL and any other caller get the same rules); REST derives its two
 * body forms (the spec's and the peer's) from their fields. What needs the registry (the task's
 * name, its arguments, the record they name) stays in the service.
 */
const MAX_KWARGS = 100;

export const scheduleTaskContract = z
  .object({
    name: z.string().trim().min(1).max(255).optional().describe(`${SCHEDULED_TASK_DOC.name}, 1 to 255 characters (default: the task's name)`),
    task: z.string().min(1).max(255).describe("The registered task: its short or app.worker.tasks.* name"),
    args: z.array(z.unknown()).max(100).optional().describe(`${TASK_DOC.args}; at most 100 items`),
    kwargs: z
      .record(z.string().max(100), z.unknown())
      .refine((o) => Object.keys(o).length <= MAX_KWARGS, `at most ${MAX_KWARGS} keyword arguments`)
      .optional()
      .describe(`${TASK_DOC.kwargs}; at most ${MAX_KWARGS} keys`),
    schedule: scheduleContract.describe(SCHEDULED_TASK_DOC.schedule),
    enabled: z.boolean().optional().describe(`${SCHEDULED_TASK_DOC.enabled} (default true)`),
  })
  .strict();

/** Pause and resume are `enabled`; a new schedule counts from now. */
export const scheduledTaskPatchContract = scheduleTaskContract.omit({ task: true }).partial();

export type ScheduleTaskInput = z.input<typeof scheduleTaskContract>;
export type ScheduleTaskPatch = z.input<typeof scheduledTaskPatchContract>;
