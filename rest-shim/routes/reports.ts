import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, ignoredTimestamp, queryBool } from "../schemas.ts";
import { wireContract } from "../contract.ts";
import { EventReportHitListSchema, EventReportSchema, reportHitOut, reportOut } from "../serializers/reports.ts";
import { errors } from "../../src/platform/errors.ts";
import { reportCreateContract, reportPatchContract } from "../../src/modules/reports/index.ts";

/** A report of 1 MiB of content, JSON-escaped (a control character is six bytes on the wire): refused with 413 beyond. */
const REPORT_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * The peer's two path shapes, `/reports/{event_uuid}` (GET, POST) and `/reports/{report_uuid}` (PUT,
 * DELETE), are one path template to OpenAPI (paths differing only by a parameter's name are
 * ambiguous): the parameter is `uuid`, an event's or a report's by method. The wire is the same.
 */
const eventParam = z.object({ uuid: anyUuid.describe("The event's UUID") }).strict();
const reportParam = z.object({ uuid: anyUuid.describe("The report's UUID") }).strict();

/**
 * The peer's clients send back what they read: its `uuid` and `event_uuid` (checked when given: a
 * body naming another report or event is refused) and its times (ignored).
 */
const echoed = {
  uuid: anyUuid.nullable().optional(),
  event_uuid: anyUuid.nullable().optional(),
  timestamp: ignoredTimestamp,
  "@timestamp": z.string().max(64).nullable().optional(),
  deleted_at: z.string().max(64).nullable().optional(),
};
const createWire = wireContract(reportCreateContract, { extra: { event_uuid: echoed.event_uuid, timestamp: echoed.timestamp, "@timestamp": echoed["@timestamp"] } });
const patchWire = wireContract(reportPatchContract, { extra: echoed });

function sameUuid(given: string | null | undefined, expected: string, field: string): void {
  if (given != null && given !== expected) throw errors.invalidField(["body", field], `Must be ${expected} (the path's) or absent`, given);
}

export const reportRoutes = [
  defineRoute({
    method: "GET", path: "/reports/{uuid}", operationId: "listEventReports", summary: "An event's reports you may read, oldest first, as the peer's hits (_id, _source); deleted=true lists the soft-deleted ones", tag: "reports",
    scopes: ["reports:read"], params: eventParam, status: 200, response: EventReportHitListSchema,
    query: z.object({ deleted: queryBool.optional() }).strict(),
    handler: async ({ principal, params, query, services }) => (await services.reports.listOfEvent(principal, params.uuid, { deleted: query.deleted })).map(reportHitOut),
  }),
  defineRoute({
    method: "POST", path: "/reports/{uuid}", operationId: "createEventReport", summary: "Add a markdown report to an event you may change (200 with the report, as the peer)", tag: "reports",
    scopes: ["reports:create"], params: eventParam, status: 200, response: EventReportSchema, bodyLimit: REPORT_BODY_LIMIT,
    body: createWire.object,
    handler: async ({ principal, params, body, services }) => {
      sameUuid(body.event_uuid as string | null | undefined, params.uuid, "event_uuid");
      return reportOut(await services.reports.create(principal, params.uuid, createWire.fromWire(body)));
    },
  }),
  defineRoute({
    method: "PUT", path: "/reports/{uuid}", operationId: "updateEventReport", summary: "Change a report's fields given (the peer's PUT merges); deleted=false restores a soft-deleted one", tag: "reports",
    scopes: ["reports:update"], params: reportParam, status: 200, response: EventReportSchema, bodyLimit: REPORT_BODY_LIMIT,
    body: patchWire.object,
    handler: async ({ principal, params, body, services }) => {
      sameUuid(body.uuid as string | null | undefined, params.uuid, "uuid");
      const fields = patchWire.fromWire(body);
      if (Object.keys(fields).length === 0 && body.event_uuid == null) throw errors.invalidField(["body"], "Nothing to update");
      if (body.event_uuid != null) {
        const current = await services.reports.get(principal, params.uuid);
        sameUuid(body.event_uuid as string, current.eventUuid, "event_uuid");
        if (Object.keys(fields).length === 0) return reportOut(current);
      }
      return reportOut(await services.reports.update(principal, params.uuid, fields));
    },
  }),
  defineRoute({
    method: "DELETE", path: "/reports/{uuid}", operationId: "deleteEventReport", summary: "Soft-delete a report (PUT {\"deleted\": false} restores it); force=true deletes it for good. 200 with the report, as the peer", tag: "reports",
    scopes: ["reports:delete"], params: reportParam, status: 200, response: EventReportSchema,
    query: z.object({ force: queryBool.default(false) }).strict(),
    handler: async ({ principal, params, query, services }) => reportOut(await services.reports.delete(principal, params.uuid, { force: query.force })),
  }),
];
