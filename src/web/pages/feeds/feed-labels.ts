import type { FeedFormat } from "../../gql/graphql.ts";

export const FORMAT_LABEL: Record<FeedFormat, string> = {
  CSV: "CSV",
  JSON: "JSON",
  FREETEXT: "Free text",
  SHARING: "MISP feed",
  MISP: "MISP feed",
};

/** The formats a new feed may have, with the file endings an upload of each accepts (spec 4.6 rule 3). */
export const FORMATS: { value: Exclude<FeedFormat, "MISP">; label: string; accept: string }[] = [
  { value: "CSV", label: "CSV", accept: ".csv,.txt" },
  { value: "JSON", label: "JSON or NDJSON", accept: ".json,.ndjson" },
  { value: "FREETEXT", label: "Free text", accept: ".txt,.csv" },
  { value: "SHARING", label: "MISP feed (manifest and events; uploads: .zip or .tar.gz)", accept: ".zip,.tar.gz,.tgz" },
];

/** MISP distribution levels a feed's events get. */
export const DISTRIBUTIONS = [
  { value: "0", label: "Your organisation only" },
  { value: "1", label: "This community" },
  { value: "2", label: "Connected communities" },
  { value: "3", label: "All communities" },
  { value: "5", label: "Inherit" },
];

/** The counts a fetch_feed run reports (its progress while running, its result when done). */
export const RUN_COUNTS: { key: string; label: string }[] = [
  { key: "rows", label: "Rows read" },
  { key: "events_created", label: "Events created" },
  { key: "events_updated", label: "Events updated" },
  { key: "events_unchanged", label: "Events unchanged" },
  { key: "attributes_created", label: "Attributes created" },
  { key: "attributes_updated", label: "Attributes updated" },
  { key: "attributes_unchanged", label: "Attributes unchanged" },
  { key: "rejected", label: "Rejected" },
  { key: "warninglisted", label: "Warninglisted" },
];
