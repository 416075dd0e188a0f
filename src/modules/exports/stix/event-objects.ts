/** The STIX objects of events and organisations: a `report` per event, an `identity` per organisation. */
import { reportId } from "./attribute-objects.ts";
import { derivedUuid } from "./ids.ts";
import type { EventSource, Organisation } from "./source-documents.ts";
import { stixTime, TIMELESS } from "./time.ts";
import type { Identity, Report } from "./types.ts";

export function identityOf(org: Organisation): Identity {
  return {
    type: "identity",
    spec_version: "2.1",
    id: `identity--${derivedUuid("identity", org.uuid)}`,
    created: TIMELESS,
    modified: TIMELESS,
    name: org.name,
    identity_class: "organization",
  };
}

export type ReportHeader = Omit<Report, "object_refs">;

export interface ReportContext {
  createdByRef?: string;
  markings: string[];
  /** The latest time of the event's attributes: the report's time when the event document is missing. */
  latestAttributeTime: number;
}

/**
 * A report without its object_refs, which the writer streams after it (an event of a hundred
 * thousand attributes never has its whole list in memory as strings). `event` is null when only the
 * event's attributes were exported: the report then says no more than the event's uuid.
 */
export function reportHeader(eventUuid: string, event: EventSource | null, ctx: ReportContext): ReportHeader {
  const fallback = stixTime(ctx.latestAttributeTime) ?? TIMELESS;
  const modified = (event && stixTime(event.timestamp)) ?? fallback;
  const day = event?.date ? `${event.date}T00:00:00.000Z` : null;
  // MISP keeps no creation time: the event's date, unless it is later than the last change.
  const created = day && day <= modified ? day : modified;
  const published = (event && event.publishTimestamp > 0 && stixTime(event.publishTimestamp)) || modified;
  const out: ReportHeader = {
    type: "report",
    spec_version: "2.1",
    id: reportId(eventUuid),
    created,
    modified,
    name: event?.info || `MISP event ${eventUuid}`,
    report_types: ["threat-report"],
    published,
  };
  if (ctx.createdByRef) out.created_by_ref = ctx.createdByRef;
  if (event?.tags.length) out.labels = [...new Set(event.tags)];
  if (ctx.markings.length) out.object_marking_refs = ctx.markings;
  return out;
}

/** The whole report, for callers that hold its references anyway (tests, small exports). */
export function buildReport(header: ReportHeader, objectRefs: string[]): Report {
  return { ...header, object_refs: objectRefs };
}
