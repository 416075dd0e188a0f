/** The correlations area's front door: the service, what the indexer reads (pairs, correlation changes) and what jobs run. */
export type { CorrelatedAttribute, KeyCount, RelatedEvent } from "./correlation-aggregates.ts";
export { pairDetails, pairsOfAttributes } from "./correlation-store.ts";
export type { PairDetail } from "./correlation-store.ts";
export { CORRELATED_ATTRIBUTE_DOC, CORRELATION_COUNT_DOC, CORRELATION_DELETION_DOC, CORRELATION_EXCLUSION_DOC, CORRELATION_HISTOGRAM_DOC, CORRELATION_REBUILD_DOC, CORRELATION_STATS_DOC, CORRELATION_TYPES_DOC } from "./correlations.docs.ts";
export { exclusionCreateContract, MAX_EXCLUSION_LENGTH } from "./correlations.contracts.ts";
export type { ExclusionCreate } from "./correlations.contracts.ts";
export { CorrelationsService } from "./correlations.service.ts";
export type { CorrelationHit, Exclusion } from "./correlations.service.ts";
export { CORRELATION_CREATED, CORRELATION_DELETED, correlateChangeRange, isCorrelationChange } from "./correlator.ts";
export { generateCorrelationsTask } from "./generate-correlations-task.ts";
export { HISTOGRAM_INTERVALS } from "./histogram.ts";
export type { HistogramBucket } from "./histogram.ts";
export { enqueueRebuildStep, failRebuild, runRebuildStep } from "./rebuild.ts";
export type { RebuildRow } from "./rebuild.ts";
