/** The event reports area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { ReportsService } from "./reports.service.ts";
export type { ReportRecord, ReportSelection } from "./reports.service.ts";
export { mispEventReports, upsertReportDrafts } from "./report-store.ts";
export type { ReportDraft, ReportView } from "./report-store.ts";
export { MAX_REPORT_CONTENT_BYTES, MAX_REPORT_NAME_LENGTH, reportCreateContract, reportFieldsContract, reportPatchContract } from "./reports.contracts.ts";
export type { ReportCreate, ReportPatch } from "./reports.contracts.ts";
export { REPORT_DOC } from "./reports.docs.ts";
