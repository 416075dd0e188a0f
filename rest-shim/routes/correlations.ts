import { z } from "zod";
import { defineRoute } from "../route.ts";
import { idParams, queryInt } from "../schemas.ts";
import { searchPageOut } from "../serializers/search.ts";
import { anyUuid } from "./attributes.ts";
import type { RebuildRow } from "../../src/modules/correlations/rebuild.ts";

const rebuildOut = (r: RebuildRow) => ({
  id: r.id,
  status: r.status,
  total: r.total,
  processed: r.processed,
  correlations_created: r.created,
  correlations_removed: r.removed,
  error: r.error,
  requested_by: r.requested_by,
  created_at: r.created_at,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

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
    method: "GET", path: "/correlations/", tag: "correlations",
    summary: "Correlation documents (each pair in both directions), newest first, with the peer's exact filters; P3 envelope; only pairs whose two events you may read",
    scopes: ["correlations:read"], status: 200, query: listQuery,
    handler: async ({ principal, query, services }) => {
      const { page, size, ...filters } = query;
      return searchPageOut(await services.correlations.list(principal, filters, { page, size }), "@timestamp");
    },
  }),
  defineRoute({
    method: "GET", path: "/correlations/stats", tag: "correlations",
    summary: "Number of correlations, the 10 most correlated events and values (pairs you may read)",
    scopes: ["correlations:read"], status: 200,
    handler: async ({ principal, services }) => {
      const s = await services.correlations.stats(principal);
      const out = (l: { key: string; docCount: number }[]) => l.map((x) => ({ key: x.key, doc_count: x.docCount }));
      return { total_correlations: s.totalCorrelations, top_correlated_events: out(s.topCorrelatedEvents), top_correlated_values: out(s.topCorrelatedValues) };
    },
  }),
  defineRoute({
    method: "POST", path: "/correlations/run", tag: "correlations",
    summary: "Queue a full, resumable rebuild of the correlations in batches; 202 with the job id and the rebuild whose progress GET /correlations/run/{rebuild_id} shows",
    scopes: ["correlations:create"], status: 202,
    handler: async ({ principal, services }) => {
      const { rebuild, jobId } = await services.correlations.startRebuild(principal);
      return { task_id: jobId, status: rebuild.status, message: "generate correlations job enqueued", rebuild: rebuildOut(rebuild) };
    },
  }),
  defineRoute({
    method: "GET", path: "/correlations/run/{rebuild_id}", tag: "correlations",
    summary: "Progress of a correlation rebuild: status queued/running/succeeded/failed, attributes processed of total, pairs created and removed",
    scopes: ["correlations:read"], status: 200, params: idParams("rebuild_id"),
    handler: async ({ principal, params, services }) => rebuildOut(await services.correlations.rebuild(principal, params.rebuild_id)),
  }),
  defineRoute({
    method: "GET", path: "/correlations/exclusions", tag: "correlations",
    summary: "Correlation exclusions (values that never correlate; % is a wildcard)",
    scopes: ["correlations:read"], status: 200,
    handler: ({ principal, services }) => services.correlations.exclusions(principal),
  }),
  defineRoute({
    method: "POST", path: "/correlations/exclusions", tag: "correlations",
    summary: "Add a correlation exclusion (value up to 1024 characters, % matches anything); existing pairs go at the next correlation of their attributes",
    scopes: ["correlations:create"], status: 201,
    body: z.object({ value: z.string(), comment: z.string().max(10_000).optional() }).strict(),
    handler: ({ principal, body, services }) => services.correlations.addExclusion(principal, body.value, body.comment),
  }),
  defineRoute({
    method: "DELETE", path: "/correlations/exclusions/{exclusion_id}", tag: "correlations",
    summary: "Remove a correlation exclusion",
    scopes: ["correlations:delete"], status: 204, params: idParams("exclusion_id"),
    handler: ({ principal, params, services }) => services.correlations.deleteExclusion(principal, params.exclusion_id),
  }),
];
