import { Logger as GraphileLogger } from "graphile-worker";
import type { Logger } from "./logger.ts";

/** graphile-worker logs through pino like everything else. */
export function graphileLogger(log: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    const child = log.child({ component: "jobs", ...scope, ...(meta ?? {}) });
    if (level === "error") child.error(message);
    else if (level === "warning") child.warn(message);
    else if (level === "info") child.info(message);
    else child.debug(message);
  });
}
