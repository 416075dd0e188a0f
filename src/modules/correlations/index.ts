/** Correlations' public surface for other areas: the indexer reads pairs and correlation changes, jobs run the correlator. */
export { correlateChangeRange, CORRELATION_DELETED, isCorrelationChange } from "./correlator.ts";
export { pairsOfAttributes, type PairDetail } from "./correlation-store.ts";
export { enqueueRebuildStep, failRebuild, runRebuildStep } from "./rebuild.ts";
