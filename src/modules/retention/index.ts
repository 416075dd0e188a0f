/** The retention area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { enforceRetentionTask } from "./enforce-retention.ts";
export { purgeDeletedTask } from "./purge-deleted.ts";
export type { RetentionBadge, RetentionStatus } from "./retention-policy.ts";
export { RetentionService } from "./retention.service.ts";
