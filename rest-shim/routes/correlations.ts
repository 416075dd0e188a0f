import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, idParams, queryInt } from "../schemas.ts";
import { SEARCH_PAGE_SCHEMAS, searchPageOut } from "../serializers/search.ts";
import {
  CorrelationExclusionSchema,
  CorrelationHistogramSchema,
  CorrelationRebuildSchema,
  CorrelationRunQueuedSchema,
  CorrelationStatsSchema,
  CorrelationsDeletedSchema,
  KeyCountSchema,
  correlatedAttributeOut,
  countsOut,
  exclusionOut,
  histogramOut,
  rebuildOut,
} from "../serializers/correlations.ts";
import { HISTOGRAM_INTERVALS, exclusionCreateContract } from "../../src/modules/correlations/index.ts";
import { wireContract } from "../contract.ts";

const exclusionWire = wireContract(exclusionCreateContract);

const noQuery = z.object({}).strict();

const listQuery = z
  .object({
    page: queryInt(1, 10_000, 1),
    size: queryInt(1, 100, 10),
    source_attribute_uuid: anyUuid.optional(),
    source_event_uuid: anyUuid.optional(),
    target_attribute_uuid: anyUuid.optional(),
    target_event_uuid: anyUuid.optional(),
    match_type: z.enum(["term", "composite", "cidr"]).optional(),
  })
  .strict();

export const correlationRoutes = [
  defineRoute({
    method: "GET", path: "/correlations/", operationId: "listCorrelations", tag: "correlations",
    summary: "Correlation documents (each pair in both directions), newest first, with the peer's exact filters; P3 envelope; only pairs whose two events you may read",
    scopes: ["correlations:read"], status: 200, response: SEARCH_PAGE_SCHEMAS.correlations, query: listQuery,
    handler: async ({ principal, query, services }) => {
      const { page, size, ...filters } = query;
      return searchPageOut(await services.correlations.list(principal, filters, { page, size }), "@timestamp");
    },
  }),
  defineRoute({
    method: "GET", path: "/correlations/stats", operationId: "getCorrelationStats", tag: "correlations",
    summary: "The peer's statistics over the correlations you may read: total_correlations (documents, two per pair), the 10 events with most documents, the 10 attributes with most pairs (with top_attribute_info), and ours: the 10 most correlated values",
    scopes: ["correlations:read"], status: 200, response: CorrelationStatsSchema,
    handler: async ({ principal, services }) => {
      const s = await services.correlations.stats(principal);
      return {
        top_correlated_events: countsOut(s.topCorrelatedEvents),
        top_correlated_attributes: s.topCorrelatedAttributes.map(correlatedAttributeOut),
        total_correlations: s.totalCorrelations,
        top_correlated_values: countsOut(s.topCorrelatedValues),
      };
    },
  }),
  defineRoute({
    method: "GET", path: "/correlations/events/{source_event_uuid}/top", operationId: "listTopCorrelatedEvents", tag: "correlations",
    summary: "The 10 events with most correlating attribute pairs with this one, [{key: event uuid, doc_count}], from PostgreSQL; only events you may read; 404 for an event you may not read",
    scopes: ["correlations:read"], status: 200, response: z.array(KeyCountSchema),
    params: z.object({ source_event_uuid: anyUuid }).strict(), query: noQuery,
    handler: async ({ principal, params, services }) => countsOut(await services.correlations.topEvents(principal, params.source_event_uuid)),
  }),
  defineRoute({
    method: "GET", path: "/correlations/histogram", operationId: "getCorrelationHistogram", tag: "correlations",
    summary: "Correlation documents (two per pair) per UTC calendar day, week or month (interval 1d, 1w, 1M; default 1d), empty buckets included: {buckets: [{key_as_string, key, doc_count}]}; with a Lucene query, over the matching documents",
    scopes: ["correlations:read"], status: 200, response: CorrelationHistogramSchema,
    query: z.object({ query: z.string().max(10_000).default(""), interval: z.enum(HISTOGRAM_INTERVALS).default("1d") }).strict(),
    handler: async ({ principal, query, services }) => histogramOut(await services.correlations.histogram(principal, query.query, query.interval)),
  }),
  defineRoute({
    method: "DELETE", path: "/correlations/", operationId: "deleteCorrelations", tag: "correlations",
    summary: "Delete every correlation pair (their index documents follow through the change records, each pair announced as attribute.correlation.deleted) and cancel queued or running rebuilds; audited. POST /correlations/run rebuilds them",
    scopes: ["correlations:delete", "correlations:admin"], status: 200, response: CorrelationsDeletedSchema, query: noQuery,
    handler: async ({ principal, services }) => {
      const { deleted, cancelledRebuilds } = await services.correlations.deleteAll(principal);
      return { message: "Correlations index deleted successfully.", deleted, cancelled_rebuilds: cancelledRebuilds };
    },
  }),
  defineRoute({
    method: "POST", path: "/correlations/run", operationId: "runCorrelations", tag: "correlations",
    summary: "Queue a full, resumable rebuild of the correlations in batches; 202 with the job id and the rebuild whose progress GET /correlations/run/{rebuild_id} shows",
    scopes: ["correlations:create", "correlations:admin"], status: 202, response: CorrelationRunQueuedSchema,
    handler: async ({ principal, services }) => {
      const { rebuild, jobId } = await services.correlations.startRebuild(principal);
      return { task_id: jobId, status: rebuild.status, message: "generate correlations job enqueued", rebuild: rebuildOut(rebuild) };
    },
  }),
  defineRoute({
    method: "GET", path: "/correlations/run/{rebuild_id}", operationId: "getCorrelationRun", tag: "correlations",
    summary: "Progress of a correlation rebuild: status queued/running/succeeded/failed, attributes processed of total, pairs created and removed",
    scopes: ["correlations:read"], status: 200, response: CorrelationRebuildSchema, params: idParams("rebuild_id"),
    handler: async ({ principal, params, services }) => rebuildOut(await services.correlations.rebuild(principal, params.rebuild_id)),
  }),
  defineRoute({
    method: "GET", path: "/correlations/exclusions", operationId: "listCorrelationExclusions", tag: "correlations",
    summary: "Correlation exclusions (values that never correlate; % is a wildcard)",
    scopes: ["correlations:read"], status: 200, response: z.array(CorrelationExclusionSchema),
    handler: async ({ principal, services }) => (await services.correlations.exclusions(principal)).map(exclusionOut),
  }),
  defineRoute({
    method: "POST", path: "/correlations/exclusions", operationId: "createCorrelationExclusion", tag: "correlations",
    summary: "Add a correlation exclusion (value up to 1024 characters, % matches anything); existing pairs go at the next correlation of their attributes",
    scopes: ["correlations:admin"], status: 201, response: CorrelationExclusionSchema,
    body: exclusionWire.object,
    handler: async ({ principal, body, services }) => exclusionOut(await services.correlations.addExclusion(principal, exclusionWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/correlations/exclusions/{exclusion_id}", operationId: "deleteCorrelationExclusion", tag: "correlations",
    summary: "Remove a correlation exclusion",
    scopes: ["correlations:admin"], status: 204, params: idParams("exclusion_id"),
    handler: ({ principal, params, services }) => services.correlations.deleteExclusion(principal, params.exclusion_id),
  }),
];
