/** The audit area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { AuditService } from "./audit.service.ts";
export type { AuditRecord } from "./audit.service.ts";
