/** The retention area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { enforceRetentionTask } from "./enforce-retention.ts";
export { purgeDeletedTask } from "./purge-deleted.ts";
export type { RetentionBadge, RetentionStatus } from "./retention-policy.ts";
export { RETENTION_BADGE_DOC, RETENTION_BADGE_STATUS_DOC, RETENTION_DOC, RETENTION_PREVIEW_DOC, RETENTION_TYPES_DOC } from "./retention.docs.ts";
export { RetentionService } from "./retention.service.ts";
