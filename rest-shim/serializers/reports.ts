import { z } from "zod";
import { REPORT_DOC, type ReportView } from "../../src/modules/reports/index.ts";
import { named } from "../contract.ts";

/** The peer's report document (its `misp-event-reports` `_source`), plus `deleted_at`. */
export const EventReportSchema = named(
  "EventReport",
  z.object({
    uuid: z.uuid().describe(REPORT_DOC.uuid),
    event_uuid: z.uuid().describe(REPORT_DOC.eventUuid),
    name: z.string().describe(REPORT_DOC.name),
    content: z.string().describe(REPORT_DOC.content),
    distribution: z.int().min(0).max(5).describe(REPORT_DOC.distribution),
    sharing_group_id: z.int().nullable().describe(REPORT_DOC.sharingGroupId),
    timestamp: z.number().describe(REPORT_DOC.timestamp),
    "@timestamp": z.string().describe("The last change, ISO 8601 in UTC with an explicit offset, as the peer writes it"),
    deleted: z.boolean().describe(REPORT_DOC.deleted),
    deleted_at: z.string().nullable().describe(REPORT_DOC.deletedAt),
  }),
  REPORT_DOC.type,
);

/**
 * The peer answers an event's reports as raw OpenSearch hits (its frontend reads `_id` and
 * `_source`); here they come from PostgreSQL in the same shape.
 */
export const EventReportHitSchema = named(
  "EventReportHit",
  z.object({
    _index: z.literal("svc-event-reports").describe("Always svc-event-reports (the peer's misp-event-reports index; reports are read from PostgreSQL here)"),
    _id: z.uuid().describe(REPORT_DOC.uuid),
    _source: EventReportSchema,
  }),
  "An event report in the peer's hit shape",
);

export const EventReportHitListSchema = z.array(EventReportHitSchema);

const utcIso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace("Z", "+00:00");

export function reportOut(r: ReportView): z.output<typeof EventReportSchema> {
  return {
    uuid: r.uuid,
    event_uuid: r.eventUuid,
    name: r.name,
    content: r.content,
    distribution: r.distribution,
    sharing_group_id: r.sharingGroupId,
    timestamp: r.timestamp,
    "@timestamp": utcIso(r.timestamp),
    deleted: r.deleted,
    deleted_at: r.deletedAt?.toISOString() ?? null,
  };
}

export const reportHitOut = (r: ReportView): z.output<typeof EventReportHitSchema> => ({ _index: "svc-event-reports", _id: r.uuid, _source: reportOut(r) });
