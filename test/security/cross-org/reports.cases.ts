import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * Event reports: items of their event, like objects. A's shared event is readable by B with its
 * distribution-5 report, not its distribution-0 one (nor its text); A's private event's report is
 * hidden (404); only A changes them (403 on what B reads, 404 on the rest).
 */
const alternate = <T>({ actor }: CaseContext, first: T, second: T): T => (actor === "bUser" || actor === "bKey" ? second : first);
/** A hidden report: the private event's, or the distribution-0 one of the shared event. */
const hiddenReport = (ctx: CaseContext) => alternate(ctx, ctx.w.a.privateReport.uuid, ctx.w.a.sharedPrivateReport.uuid);
/** B's user aims writes at what it reads (403); B's other callers at a hidden report or event (404, or 403 without the scope). */
const onShared = { bUser: 403 } as const;
const writeEvent = (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedEvent.uuid : ctx.w.a.privateEvent.uuid);
const writeReport = (ctx: CaseContext) => (ctx.actor === "bUser" ? ctx.w.a.sharedReport.uuid : hiddenReport(ctx));

export const reportsRest: RestCase[] = [
  {
    route: "GET /reports/{uuid}",
    request: ({ w }) => ({ path: `/reports/${w.a.sharedEvent.uuid}` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateReport.uuid],
    bCheck: (body, { w }) => (Array.isArray(body) && body.some((h: { _id: string }) => h._id === w.a.sharedReport.uuid) ? null : "B does not read the shared event's distribution-5 report"),
  },
  { route: "POST /reports/{uuid}", request: (ctx) => ({ path: `/reports/${writeEvent(ctx)}`, json: { name: "by B", content: "B's text" } }), b: "hidden", override: onShared, validator: { status: 200 } },
  { route: "PUT /reports/{uuid}", request: (ctx) => ({ path: `/reports/${writeReport(ctx)}`, json: { content: "changed by B" } }), b: "hidden", override: onShared, validator: { status: 200 } },
  {
    route: "DELETE /reports/{uuid}",
    request: async (ctx) => ({ path: `/reports/${ctx.validating ? await ctx.w.throwaway.report() : writeReport(ctx)}?force=true` }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
];

/** Beside the one row per route: A's private event's reports are hidden as a whole. */
export const reportsReadPaths: RestCase[] = [
  { route: "GET /reports/{uuid}", request: ({ w }) => ({ path: `/reports/${w.a.privateEvent.uuid}` }), b: "hidden", validator: { status: 200 } },
];

const REPORT = "uuid eventUuid name content distribution deleted";

export const reportsGraphql: GraphqlCase[] = [
  {
    field: "Query.eventReports", scopes: ["reports:read"],
    query: `query($e: String!) { eventReports(eventUuid: $e) { ${REPORT} } event(uuid: $e) { reports { ${REPORT} } } }`,
    variables: ({ w }) => ({ e: w.a.sharedEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateReport.uuid],
  },
  { field: "Query.eventReport", scopes: ["reports:read"], query: `query($u: String!) { eventReport(uuid: $u) { ${REPORT} } }`, variables: (ctx) => ({ u: hiddenReport(ctx) }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.createEventReport", scopes: ["reports:create"],
    query: "mutation($e: String!) { createEventReport(eventUuid: $e, input: { name: \"by B\" }) { uuid } }",
    variables: (ctx) => ({ e: writeEvent(ctx) }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    field: "Mutation.updateEventReport", scopes: ["reports:update"],
    query: "mutation($u: String!) { updateEventReport(uuid: $u, input: { content: \"changed by B\" }) { uuid } }",
    variables: (ctx) => ({ u: writeReport(ctx) }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
  {
    field: "Mutation.deleteEventReport", scopes: ["reports:delete"],
    query: "mutation($u: String!) { deleteEventReport(uuid: $u, force: true) }",
    variables: async (ctx) => ({ u: ctx.validating ? await ctx.w.throwaway.report() : writeReport(ctx) }),
    b: "hidden", override: onShared, validator: { status: 200 },
  },
];
