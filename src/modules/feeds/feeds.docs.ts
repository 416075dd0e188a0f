/**
 * What a feed's, an upload's and a preview's fields mean, written once for every adapter (GraphQL
 * descriptions, REST serializer schemas, MCP tools). Names are the service's; adapters add their
 * own field names.
 */
export const FEED_DOC = {
  id: "Numeric id of the feed",
  name: "Feed name",
  provider: "Who publishes the feed (free text)",
  url: "The source: an http(s) URL, or for a local feed the upload's storage key (feed-uploads/<uuid>)",
  sourceFormat: "The source format, how the source is read (the peer's misp is answered as sharing)",
  inputSource: "Where its data comes from: network, fetched from url; local, an uploaded file whose storage key is url",
  enabled: "Fetched on its schedule when true",
  distribution:
    "The distribution of the events it creates, a MISP distribution level: 0 your organisation only, 1 this community, 2 connected communities, 3 all communities, 4 a sharing group, 5 inherit",
  fixedEvent: "Ingest into one event (the feed's event uuid), updated at every fetch, instead of a new event per fetch",
  eventUuid: "The fixed event's UUID once created; null until the first fetch of a fixed-event feed, and for other feeds",
  publish: "Publish the events it creates",
  overrideIds: "Clear the IDS flag (to_ids) of the attributes it creates",
  skipWarninglisted: "Leave out values on an enabled warninglist (counted as warninglisted in the run's result); when false they are stored with their hits, which keep them out of correlation",
  tags: "Tag names attached to the events it creates",
  rules: "The peer's feed filter rules, kept as sent: MISP's free-form rules document",
  settings:
    "Format settings, how to read the source: csvConfig, jsonConfig or freetextConfig, and for a local feed localFile {filename, size}; free-form because each format has its own keys and the peer's other keys are kept as sent",
  headers: "The extra HTTP headers sent with each fetch, an object keyed by header name; their values (credentials) are write-only and always answered redacted, ********",
  orgId: "Numeric id of the owning organisation",
  lastFetchedAt: "When it was last fetched; null if never",
} as const;

/** A new feed with its ingestion run. */
export const CREATED_FEED_DOC = {
  feed: "The feed",
  ingestion: "The one ingestion run of an uploaded (local) feed, started at once, as you; null for a network feed",
} as const;

export const FEED_UPLOAD_DOC = {
  key: "The upload's storage key, feed-uploads/<uuid>: a local feed's url",
  filename: "The uploaded file's original name",
  size: "Size in bytes: the bytes uploaded",
  sourceFormat: "The format it was checked as: csv, json, freetext or sharing",
  members: "Sharing archives only: what was kept of the archive",
  events: "The event files stored",
  hashes: "hashes.csv was stored",
  unsafeEntries: "The entries (members) dropped for an unsafe path (../, absolute)",
} as const;

export const FEED_PREVIEW_ROW_DOC = {
  where: "Where in the source: line, row or item number",
  value: "The attribute value read",
  type: "The MISP attribute type it would be stored as, given or detected",
  error: "Why ingestion would reject the row",
} as const;

const ENTRY = "as the feed's manifest.json writes it (info, date, Orgc, Tag, timestamp, ...), free-form because feeds add their own keys";
/** A MISP feed's manifest entries. */
export const FEED_MANIFEST_DOC = {
  uuid: "The event's UUID (the manifest's key)",
  entry: `The manifest's entry ${ENTRY}`,
  entries: `Manifest entries: the uuid and the entry ${ENTRY}`,
} as const;

/** The types' own descriptions (CreatedFeed is REST's FeedCreated). */
export const FEED_TYPES_DOC = {
  Feed: "A feed: a source of indicators fetched and ingested into events, owned by an organisation",
  CreatedFeed: "A new feed and, for an uploaded (local) one, its ingestion run",
  FeedUpload: "An uploaded feed file, stored (spec 2.4): create a local feed with url = key to ingest it",
  FeedPreviewRow: "One row of a feed preview: the attribute ingestion would store of it, or why it would reject it",
} as const;
