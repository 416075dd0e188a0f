/** The audit area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { AUDIT_DOC, AUDIT_TYPES_DOC } from "./audit.docs.ts";
export { AuditService } from "./audit.service.ts";
export type { AuditEntry, AuditRecord } from "./audit.service.ts";
