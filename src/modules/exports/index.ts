/** The exports area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS } from "./export-store.ts";
export { exportCreateContract, exportScheduleContract } from "./exports.contracts.ts";
export type { ExportCreateInput, ExportScheduleInput } from "./exports.contracts.ts";
export { EXPORT_DOC, EXPORT_TYPES_DOC } from "./exports.docs.ts";
export { ExportsService } from "./exports.service.ts";
export type { ExportView } from "./exports.service.ts";
export { runExportTask } from "./run-export-task.ts";
export { stixBundle } from "./stix/index.ts";
