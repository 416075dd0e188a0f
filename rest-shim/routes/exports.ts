import { z } from "zod";
import { wireContract } from "../contract.ts";
import { defineRoute } from "../route.ts";
import { idParams, pageQueryFields, queryBool } from "../schemas.ts";
import { exportCreateContract, exportScheduleContract } from "../../src/modules/exports/index.ts";
import { peerScheduleInput } from "../../src/modules/tasks/index.ts";
import { ExportPageSchema, ExportSchema, exportOut } from "../serializers/exports.ts";

/** The exports contract on the wire: snake_case fields, the schedule as the peer's object. */
const peerSchedule = peerScheduleInput.nullable().optional().describe("The peer's schedule object: {type: interval, every: seconds} or {type: crontab, minute, hour, day_of_week, day_of_month, month_of_year, timezone}; null: none");
const createWire = wireContract(exportCreateContract, { codecs: { schedule: peerSchedule } });
const scheduleWire = wireContract(exportScheduleContract, { codecs: { schedule: peerSchedule } });

const exportId = idParams("export_id");

/** `attachment; filename="..."` with an ASCII fallback and the UTF-8 name (RFC 6266). */
function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export const exportRoutes = [
  defineRoute({
    method: "GET", path: "/exports/", operationId: "listExports", tag: "exports",
    summary: "Your exports, newest first (page/size; filter: part of the name). Administrators: all=true for everyone's",
    scopes: ["exports:read"], status: 200, response: ExportPageSchema,
    query: z.object({ ...pageQueryFields, filter: z.string().max(255).optional(), all: queryBool.optional() }).strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.exports.list(principal, { name: query.filter, all: query.all }, query);
      return { ...page, items: page.items.map(exportOut) };
    },
  }),
  defineRoute({
    method: "POST", path: "/exports/", operationId: "createExport", tag: "exports",
    summary:
      "Save an export of a Lucene query and run it now: name, query, index_target (attributes, events; default attributes), format (json, csv, misp, stix; default json), " +
      "distribution (required for misp: the exported MISP event's), schedule (the peer's schedule object: {type: interval, every: seconds} or {type: crontab, minute, hour, ...}), schedule_enabled. " +
      "It reads as you, with your rights when each run starts. 429 when exports.max_active_per_user of yours are queued or running",
    scopes: ["exports:create"], status: 201, response: ExportSchema, body: createWire.object,
    handler: async ({ principal, body, services }) => exportOut(await services.exports.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "GET", path: "/exports/{export_id}", operationId: "getExport", tag: "exports",
    summary: "One export: status (queued, running, completed, failed), record_count (progress while running), file_size, error",
    scopes: ["exports:read"], status: 200, response: ExportSchema, params: exportId,
    handler: async ({ principal, params, services }) => exportOut(await services.exports.get(principal, params.export_id)),
  }),
  defineRoute({
    method: "POST", path: "/exports/{export_id}/run", operationId: "runExport", tag: "exports",
    summary: "Run the export again now (back to queued; its file is replaced when the run completes). 409 while it is queued or running, 429 beyond your limit",
    scopes: ["exports:create"], status: 200, response: ExportSchema, params: exportId,
    handler: async ({ principal, params, services }) => exportOut(await services.exports.run(principal, params.export_id)),
  }),
  defineRoute({
    method: "PATCH", path: "/exports/{export_id}/schedule", operationId: "setExportSchedule", tag: "exports",
    summary: "Change the export's schedule: {schedule?, schedule_enabled?}; schedule: null removes it",
    scopes: ["exports:create"], status: 200, response: ExportSchema, params: exportId, body: scheduleWire.object,
    handler: async ({ principal, params, body, services }) => exportOut(await services.exports.setSchedule(principal, params.export_id, scheduleWire.fromWire(body))),
  }),
  defineRoute({
    method: "GET", path: "/exports/{export_id}/download", operationId: "downloadExport", tag: "exports",
    summary: "The export's last complete file as an attachment (json: application/json, csv: text/csv, stix: application/stix+json, misp: application/json); 409 until completed",
    scopes: ["exports:read"], status: 200, params: exportId,
    download: { mediaTypes: ["application/json", "text/csv", "application/stix+json"] },
    handler: async ({ principal, params, services, reply }) => {
      const file = await services.exports.download(principal, params.export_id);
      reply.header("Content-Type", file.contentType);
      reply.header("Content-Disposition", attachment(file.filename));
      if (file.size !== null) reply.header("Content-Length", String(file.size));
      reply.header("Cache-Control", "no-store");
      return file.stream;
    },
  }),
  defineRoute({
    method: "DELETE", path: "/exports/{export_id}", operationId: "deleteExport", tag: "exports",
    summary: "Delete an export with its schedule and files",
    scopes: ["exports:delete"], status: 204, params: exportId,
    handler: ({ principal, params, services }) => services.exports.delete(principal, params.export_id),
  }),
];
