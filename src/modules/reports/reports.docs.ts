/**
 * What an event report's fields mean, written once for every adapter (GraphQL descriptions, the
 * REST serializer, the contracts). Names are the service's.
 */
export const REPORT_DOC = {
  type: "A MISP event report: a markdown document inside an event, read like an object of it (its event readable and its own distribution), written by the event's owners",
  uuid: "The report's UUID",
  eventUuid: "UUID of the event it belongs to",
  name: "The report's title",
  nameInput: "The report's title, one line of at most 255 characters; absent or empty on creation: \"Event report (<Unix time>)\"",
  content:
    "The report in markdown, stored and returned as given (at most 1 MiB of UTF-8): never rendered by the service; a client that renders it must sanitise the HTML it produces",
  distribution: "MISP distribution level: 0 the event's organisations only, 1 this community, 2 connected communities, 3 all communities, 4 a sharing group, 5 the event's own (default)",
  sharingGroupId: "Sharing group id (distribution 4); null otherwise",
  timestamp: "Last change, Unix time in seconds (MISP's timestamp)",
  deleted: "Soft-deleted: kept and restorable (update with deleted false), left out of lists and search",
  deletedAt: "When it was soft-deleted; null while it is not",
} as const;
