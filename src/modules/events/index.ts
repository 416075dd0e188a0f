/** The events area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { loadEvent } from "./event-reader.ts";
export type { EventHead, EventView, TagView } from "./event-reader.ts";
export type { EventDraft, OrgDraft, SharingGroupDraft } from "./event-draft.ts";
export { ensureTags, tagColour } from "./event-writer.ts";
export { MAX_TAG_FILTERS, calendarDate, eventCreateContract, eventUpdateContract } from "./events.contracts.ts";
export type { EventCreate, EventFields } from "./events.contracts.ts";
export { EventsService } from "./events.service.ts";
export type { EventFilter } from "./events.service.ts";
export type { EventStatistics } from "./event-statistics.ts";
export { mispObject, mispTime } from "./misp-export.ts";
export type { MispExportOptions, MispObjectRow } from "./misp-export.ts";
export { isCalendarDate, parseMispEvent } from "./misp-parse.ts";
