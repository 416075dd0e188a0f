import { instanceWide, noParams } from "../tasks/index.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { queueRebuild } from "./rebuild.ts";

/** Task `generate_correlations`: queues a full rebuild (its progress: GET /correlations/run/{rebuild_id}), as POST /correlations/run does. */
export const generateCorrelationsTask: RegisteredTask = {
  name: "generate_correlations",
  description: "Queue a full, resumable rebuild of the correlations.",
  requiredScopes: ["correlations:create", "correlations:admin"],
  maxAttempts: 3,
  checkParams: noParams,
  checkTarget: instanceWide,
  async execute({ app, principal }) {
    const { rebuild, jobId } = await queueRebuild(app, principal.userId);
    return { rebuild_id: rebuild.id, job_id: jobId };
  },
};
