import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { huntCreateContract, huntListContract, huntPatchContract } from "./hunts.contracts.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { HUNT_STATUSES, INDEX_TARGETS, type HuntStatus, type HuntType, type IndexTarget } from "./hunt-definition.ts";
import { HUNT_FREQUENCY_NAMES, frequencyOf } from "./hunt-schedule.ts";
import { scheduleSecondsOf, type HuntRunRow } from "./hunt-store.ts";
import type { Hit } from "./hit-keys.ts";
import { HUNT_DOC, HUNT_HIT_DOC, HUNT_RESULT_DOC, HUNT_RUN_DOC, HUNT_TYPES_DOC, IS_NEW_DOC } from "./hunts.docs.ts";
import { checkPageSize } from "../../platform/paging.ts";

const HuntTypeEnum = builder.enumType("HuntType", {
  description: "What a hunt asks (REST hunt_type; the peer's names opensearch, rulezet and mitre-attack-pattern are taken there too)",
  values: enumValues<HuntType>({
    search: "A Lucene query over the attributes, events or correlations index (the peer's opensearch)",
    cpe: "A CPE name: the CVEs the vulnerability database lists for it",
    rules: "A vulnerability id (CVE-...): the detection rules the rules service lists for it (the peer's rulezet)",
    "fw-attack-pattern": "MITRE ATT&CK technique codes, uuids or tags: events or attributes tagged with them (the peer's mitre-attack-pattern)",
  }),
});
const IndexTargetEnum = builder.enumType("HuntIndexTarget", {
  description: "The index a search or fw-attack-pattern hunt reads (REST index_target); cpe and rules hunts have none",
  values: enumValues<(typeof INDEX_TARGETS)[number]>({
    attributes: "The attributes index (search: the default)",
    events: "The events index (fw-attack-pattern: the default)",
    correlations: "The correlations index (search only)",
    attributes_and_events: "Both, newest first, each hit naming its kind (fw-attack-pattern only)",
  }),
});
const StatusEnum = builder.enumType("HuntStatus", {
  description: "Whether a hunt's schedule runs it",
  values: enumValues<(typeof HUNT_STATUSES)[number]>({ active: "Runs on its schedule", paused: "Its schedule does not run it (it can still be run by hand)" }),
});
const FrequencyEnum = builder.enumType("HuntFrequency", {
  description: "How often a hunt runs (REST schedule)",
  values: enumValues<(typeof HUNT_FREQUENCY_NAMES)[number]>({ hourly: "Every hour", daily: "Every day", weekly: "Every week" }),
});

/** The scheduled task's fields a hunt's schedule (its frequency) is read from. */
const FREQUENCY_SELECT = { scheduledTask: { select: { scheduleType: true, intervalEvery: true, intervalPeriod: true } } } as const;

/** A hunt (the service loads the caller's, with the selection's query); schedule and nextRunAt are its scheduled task's. */
const HuntObject = builder.prismaObject("Hunt", {
  description: HUNT_TYPES_DOC.Hunt,
  fields: (t) => ({
    id: t.exposeInt("id", { description: HUNT_DOC.id }),
    userId: t.exposeInt("userId", { description: `${HUNT_DOC.userId} (REST user_id)` }),
    name: t.exposeString("name", { description: HUNT_DOC.name }),
    description: t.exposeString("description", { nullable: true, description: HUNT_DOC.description }),
    query: t.exposeString("query", { description: HUNT_DOC.query }),
    huntType: t.field({ type: HuntTypeEnum, description: `${HUNT_DOC.huntType} (REST hunt_type)`, resolve: (h) => h.huntType as HuntType }),
    indexTarget: t.field({ type: IndexTargetEnum, nullable: true, description: `${HUNT_DOC.indexTarget} (REST index_target)`, resolve: (h) => h.indexTarget as IndexTarget | null }),
    status: t.field({ type: StatusEnum, description: HUNT_DOC.status, resolve: (h) => h.status as HuntStatus }),
    schedule: t.string({
      nullable: true,
      description: HUNT_DOC.schedule,
      select: FREQUENCY_SELECT,
      resolve: (h) => frequencyOf({ scheduledTaskId: h.scheduledTaskId, scheduleSeconds: h.scheduledTask ? scheduleSecondsOf(h.scheduledTask) : null }),
    }),
    cron: t.string({
      nullable: true,
      description: HUNT_DOC.cron,
      select: { scheduledTask: { select: { scheduleType: true, cronMinute: true, cronHour: true, cronDayOfMonth: true, cronMonthOfYear: true, cronDayOfWeek: true } } },
      resolve: ({ scheduledTask: t }) =>
        t?.scheduleType === "crontab" ? [t.cronMinute, t.cronHour, t.cronDayOfMonth, t.cronMonthOfYear, t.cronDayOfWeek].map((f) => f ?? "*").join(" ") : null,
    }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true, description: `${HUNT_DOC.scheduledTaskId} (REST scheduled_task_id)` }),
    nextRunAt: t.field({
      type: "DateTime",
      nullable: true,
      description: HUNT_DOC.nextRunAt,
      select: { scheduledTask: { select: { enabled: true, nextRunAt: true } } },
      resolve: (h) => (h.scheduledTask?.enabled ? h.scheduledTask.nextRunAt : null),
    }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, description: HUNT_DOC.lastRunAt, resolve: (h) => h.lastRunAt }),
    lastRunStatus: t.exposeString("lastRunStatus", { nullable: true, description: HUNT_DOC.lastRunStatus }),
    lastRunError: t.exposeString("lastRunError", { nullable: true, description: HUNT_DOC.lastRunError }),
    lastMatchCount: t.exposeInt("lastMatchCount", { nullable: true, description: HUNT_DOC.lastMatchCount }),
    lastSuccessAt: t.field({ type: "DateTime", nullable: true, description: HUNT_DOC.lastSuccessAt, resolve: (h) => h.lastSuccessAt }),
    createdAt: t.field({ type: "DateTime", description: DOC.createdAt, resolve: (h) => h.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: DOC.updatedAt, resolve: (h) => h.updatedAt }),
  }),
});

const HuntPage = pageType("HuntPage", HuntObject, "hunts");

const IS_NEW = `${IS_NEW_DOC}; REST is_new`;

/** A hit with what says which kind it is: the hunt's type. */
interface TypedHit {
  huntType: HuntType;
  hit: Hit;
}
const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

const DocumentHit = builder.objectRef<TypedHit>("HuntDocumentHit").implement({
  description: HUNT_TYPES_DOC.HuntDocumentHit,
  fields: (t) => ({
    isNew: t.boolean({ description: IS_NEW, resolve: (h) => h.hit.is_new === true }),
    uuid: t.string({ nullable: true, description: `${HUNT_HIT_DOC.uuid}; null for a correlation`, resolve: (h) => str(h.hit.uuid) }),
    docKind: t.string({
      nullable: true,
      description: `${HUNT_HIT_DOC.docKind}; null otherwise (REST _doc_kind)`,
      resolve: (h) => str(h.hit._doc_kind),
    }),
    document: t.field({
      type: "JSON",
      description: "The search document as the REST routes give it (snake_case fields of the events, attributes or correlations index): JSON because its fields are the index's",
      resolve: (h) => h.hit,
    }),
  }),
});

const CveHit = builder.objectRef<TypedHit>("HuntCveHit").implement({
  description: HUNT_TYPES_DOC.HuntCveHit,
  fields: (t) => ({
    isNew: t.boolean({ description: IS_NEW, resolve: (h) => h.hit.is_new === true }),
    cveId: t.string({ description: `${HUNT_HIT_DOC.cveId} (REST cve_id)`, resolve: (h) => String(h.hit.cve_id ?? "") }),
    severity: t.string({ nullable: true, description: `${HUNT_HIT_DOC.severity}; null without a score`, resolve: (h) => str(h.hit.severity) }),
    description: t.string({ description: HUNT_HIT_DOC.description, resolve: (h) => String(h.hit.description ?? "") }),
  }),
});

const RuleHit = builder.objectRef<TypedHit>("HuntRuleHit").implement({
  description: HUNT_TYPES_DOC.HuntRuleHit,
  fields: (t) => ({
    isNew: t.boolean({ description: IS_NEW, resolve: (h) => h.hit.is_new === true }),
    title: t.string({ nullable: true, description: HUNT_HIT_DOC.title, resolve: (h) => str(h.hit.title) }),
    detailUrl: t.string({ nullable: true, description: `${HUNT_HIT_DOC.detailUrl} (REST detail_url)`, resolve: (h) => str(h.hit.detail_url) }),
    rule: t.field({
      type: "JSON",
      description: "The rule as the rules service answered it (format, content, author, ...): JSON because that service's fields differ between its versions",
      resolve: (h) => h.hit,
    }),
  }),
});

const HuntHit = builder.unionType("HuntHit", {
  description: "One hit of a hunt, by hunt type: HuntDocumentHit (search, fw-attack-pattern), HuntCveHit (cpe), HuntRuleHit (rules)",
  types: [DocumentHit, CveHit, RuleHit],
  resolveType: (h) => (h.huntType === "cpe" ? CveHit : h.huntType === "rules" ? RuleHit : DocumentHit),
});

/** A result set: its hunt is re-read through the service with the selection's query when asked for. */
const HuntResultObject = builder.objectRef<{ hunt: { id: number; huntType: HuntType }; total: number; hits: Hit[]; hitCount: number; runAt: Date }>("HuntResult").implement({
  description: HUNT_TYPES_DOC.HuntResult,
  fields: (t) => ({
    hunt: t.prismaField({ type: "Hunt", description: HUNT_RESULT_DOC.hunt, resolve: (query, r, _a, ctx) => ctx.services.hunts.record(caller(ctx), r.hunt.id, query) }),
    total: t.exposeInt("total", { description: HUNT_RESULT_DOC.total }),
    hits: t.field({ type: [HuntHit], description: HUNT_RESULT_DOC.hits, resolve: (r) => r.hits.map((hit) => ({ huntType: r.hunt.huntType, hit })) }),
    hitCount: t.exposeInt("hitCount", { description: HUNT_RESULT_DOC.hitCount }),
    runAt: t.field({ type: "DateTime", description: `${HUNT_RESULT_DOC.runAt} (REST run_at)`, resolve: (r) => r.runAt }),
  }),
});

const HuntRunObject = builder.objectRef<HuntRunRow>("HuntRun").implement({
  description: HUNT_TYPES_DOC.HuntRun,
  fields: (t) => ({
    id: t.int({ description: HUNT_RUN_DOC.id, resolve: (r) => Number(r.id) }),
    runAt: t.field({ type: "DateTime", description: `${HUNT_RUN_DOC.runAt} (REST run_at)`, resolve: (r) => r.runAt }),
    matchCount: t.exposeInt("matchCount", { nullable: true, description: `${HUNT_RUN_DOC.matchCount} (REST match_count)` }),
    status: t.exposeString("status", { description: HUNT_RUN_DOC.status }),
    error: t.exposeString("error", { nullable: true, description: HUNT_RUN_DOC.error }),
    trigger: t.exposeString("trigger", { description: HUNT_RUN_DOC.trigger }),
    newHitCount: t.exposeInt("newHitCount", { nullable: true, description: `${HUNT_RUN_DOC.newHitCount} (REST new_hit_count)` }),
    durationMs: t.exposeInt("durationMs", { description: `${HUNT_RUN_DOC.durationMs} (REST duration_ms)` }),
    taskRunId: t.exposeString("taskRunId", { nullable: true, description: `${HUNT_RUN_DOC.taskRunId} (REST task_run_id)` }),
  }),
});

const HuntRunPage = pageType("HuntRunPage", HuntRunObject, "hunt runs");

const HuntInputFields = (required: boolean) =>
  builder.inputType(required ? "CreateHuntInput" : "UpdateHuntInput", {
    description: required
      ? "A new hunt (as POST /hunts/)"
      : "Changes to a hunt (as PATCH /hunts/{id}); omitted fields stay. A new query, type or target starts it afresh: its cached result goes",
    fields: (t) => ({
      name: t.string({ required, description: HUNT_DOC.name }),
      description: t.string({ description: HUNT_DOC.description }),
      query: t.string({ required, description: HUNT_DOC.query }),
      huntType: t.field({ type: HuntTypeEnum, description: "What it asks (default SEARCH)" }),
      indexTarget: t.field({ type: IndexTargetEnum, description: "The index it reads (search: ATTRIBUTES, EVENTS or CORRELATIONS; fw-attack-pattern: EVENTS, ATTRIBUTES or ATTRIBUTES_AND_EVENTS)" }),
      status: t.field({ type: StatusEnum, description: `${HUNT_DOC.status} (default ACTIVE)` }),
      schedule: t.field({ type: FrequencyEnum, description: HUNT_DOC.scheduleInput }),
      cron: t.string({ description: HUNT_DOC.cronInput }),
    }),
  });
const CreateHuntInput = HuntInputFields(true);
const UpdateHuntInput = HuntInputFields(false);

const HUNT_ID = "Numeric id of the hunt";

builder.queryFields((t) => ({
  hunts: t.field({
    extensions: cost.page("size"),
    type: HuntPage,
    description: "Your hunts, newest first; administrators: all for everyone's, userId for one user's",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 50, description: PAGE_DOC.size(50) }),
      filter: t.arg.string({ description: "Part of the name, case-insensitive" }),
      all: t.arg.boolean({ description: "Administrators: everyone's hunts" }),
      userId: t.arg.int({ description: "Administrators: one user's hunts (REST user_id)" }),
    },
    resolve: (_r, a, ctx, info) => ctx.services.hunts.page(caller(ctx), contractInput(huntListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  hunt: t.prismaField({
    type: "Hunt",
    description: "One hunt (yours; administrators: any)",
    args: { id: t.arg.int({ required: true, description: HUNT_ID }) },
    resolve: (query, _r, a, ctx) => ctx.services.hunts.record(caller(ctx), a.id, query),
  }),
  huntResults: t.field({
    type: HuntResultObject,
    description: "The result set of the last successful run; not found before the first (GET /hunts/{id}/results). With page or size, one page of its hits (hitCount says how many there are)",
    args: {
      id: t.arg.int({ required: true, description: HUNT_ID }),
      page: t.arg.int({ description: `${PAGE_DOC.page}; with size, one page of the hits` }),
      size: t.arg.int({ description: "Hits per page, 1 to 100; without page or size, every hit" }),
    },
    resolve: async (_r, a, ctx) => {
      if (a.page == null && a.size == null) {
        const { hunt, result } = await ctx.services.hunts.results(caller(ctx), a.id);
        return { hunt, total: result.total, hits: result.hits, hitCount: result.hits.length, runAt: result.runAt };
      }
      const { hunt, result } = await ctx.services.hunts.resultPage(caller(ctx), a.id, checkPageSize(a, 100));
      return { hunt, total: result.total, hits: result.hits, hitCount: result.hitCount, runAt: result.runAt };
    },
  }),
  huntHistory: t.field({
    extensions: cost.page("size"),
    type: HuntRunPage,
    description: "A hunt's runs, newest first, failed ones with their reason (GET /hunts/{id}/history, which pages with skip/limit)",
    args: {
      id: t.arg.int({ required: true, description: HUNT_ID }),
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 100, description: PAGE_DOC.size(100) }),
    },
    resolve: (_r, a, ctx) => ctx.services.hunts.historyPage(caller(ctx), a.id, checkPageSize(a, 100)),
  }),
}));

builder.mutationFields((t) => ({
  createHunt: t.prismaField({
    type: "Hunt",
    description: "Create a hunt (POST /hunts/)",
    args: { input: t.arg({ type: CreateHuntInput, required: true, description: "The new hunt" }) },
    resolve: async (query, _r, a, ctx) => ctx.services.hunts.record(caller(ctx), (await ctx.services.hunts.create(caller(ctx), contractInput(huntCreateContract, a.input))).id, query),
  }),
  updateHunt: t.prismaField({
    type: "Hunt",
    description: "Change a hunt (PATCH /hunts/{id}): only the fields given",
    args: { id: t.arg.int({ required: true, description: HUNT_ID }), input: t.arg({ type: UpdateHuntInput, required: true, description: "The fields to change" }) },
    resolve: async (query, _r, a, ctx) => ctx.services.hunts.record(caller(ctx), (await ctx.services.hunts.update(caller(ctx), a.id, contractInput(huntPatchContract, a.input))).id, query),
  }),
  deleteHunt: t.boolean({
    description: "Delete a hunt with its history, cached results and every schedule that runs it; true when done",
    args: { id: t.arg.int({ required: true, description: HUNT_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.hunts.delete(caller(ctx), a.id);
      return true;
    },
  }),
  runHunt: t.field({
    extensions: cost.search(),
    type: HuntResultObject,
    description: "Run the hunt now (as POST /hunts/{id}/run): cached and added to the history; a failed run is recorded and answered as an error",
    args: { id: t.arg.int({ required: true, description: HUNT_ID }) },
    resolve: async (_r, a, ctx) => {
      const r = await ctx.services.hunts.run(caller(ctx), a.id);
      return { hunt: r.hunt, total: r.total, hits: r.hits, hitCount: r.hits.length, runAt: r.run.runAt };
    },
  }),
  clearHuntHistory: t.boolean({
    description: "Delete the run history and the cached results; the hunt stays, and its next run with hits is a first run. True when done",
    args: { id: t.arg.int({ required: true, description: HUNT_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.hunts.clearHistory(caller(ctx), a.id);
      return true;
    },
  }),
}));
