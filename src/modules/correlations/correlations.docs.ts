/**
 * What the correlations' statistics, rebuilds and exclusions mean, written once for every adapter
 * (GraphQL descriptions, REST serializer schemas, MCP tools). Names are the service's; adapters add
 * their own field names.
 */
export const CORRELATION_COUNT_DOC = {
  key: "What is counted: an event UUID or a value",
  docCount:
    "How many: correlation documents (two per pair) in the statistics; pairs with the event in an event's top events",
} as const;

export const CORRELATED_ATTRIBUTE_DOC = {
  key: "The attribute's UUID",
  docCount: "Its number of correlating pairs: the pairs it is part of",
  type: "The attribute's MISP type",
  value: "The attribute's value",
  eventUuid: "UUID of the event the attribute belongs to",
} as const;

export const CORRELATION_STATS_DOC = {
  totalCorrelations: "Correlation documents you may read: two per pair, as the search counts them",
  topCorrelatedEvents: "The 10 events with most correlation documents (key: event UUID)",
  topCorrelatedAttributes: "The 10 attributes with most pairs",
  topCorrelatedValues: "The 10 values with most correlation documents (key: the value)",
} as const;

export const CORRELATION_HISTOGRAM_DOC = {
  key: "Start of the bucket, epoch milliseconds (UTC)",
  keyAsString: "Start of the bucket, ISO 8601 in UTC",
  docCount: "Correlation documents created in it",
} as const;

export const CORRELATION_DELETION_DOC = {
  deleted: "Pairs deleted (their documents leave the index through the change records)",
  cancelledRebuilds: "Ids of the rebuilds that were queued or running, cancelled (now failed)",
} as const;

export const CORRELATION_REBUILD_DOC = {
  id: "Numeric id of the rebuild",
  status: "Its state: queued, running, succeeded or failed",
  total: "Attributes to process",
  processed: "Attributes processed so far",
  created: "Pairs created so far",
  removed: "Pairs removed so far",
  error: "Why it failed; null otherwise",
  createdAt: "When it was queued",
  startedAt: "When it started; null while queued",
  finishedAt: "When it finished; null before",
} as const;

export const CORRELATION_EXCLUSION_DOC = {
  id: "Numeric id of the exclusion",
  value: "A value that never correlates, up to 1024 characters; % matches anything",
  createdBy: "Id of the user who added it",
} as const;

/** The types' own descriptions (CorrelationCount is REST's CorrelationKeyCount, CorrelationDeletion its CorrelationsDeleted). */
export const CORRELATION_TYPES_DOC = {
  CorrelationCount: "An aggregation (terms) bucket: a key and how many correlation documents (or pairs) have it",
  CorrelatedAttribute: "An attribute among the most correlated",
  CorrelationStats: "Statistics over the correlations you may read",
  CorrelationHistogramBucket: "One interval of the correlation histogram (a UTC day, week or month; empty ones included)",
  CorrelationDeletion: "What deleting every correlation did",
  CorrelationRebuild: "A full, resumable rebuild of the correlations, in batches, and its progress",
  CorrelationExclusion: "A correlation exclusion: a value excluded from correlation, that never correlates",
} as const;
