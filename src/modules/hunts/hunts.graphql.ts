import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { HUNT_STATUSES, HUNT_TYPES, INDEX_TARGETS } from "./hunt-definition.ts";
import { HUNT_FREQUENCY_NAMES, frequencyOf } from "./hunt-schedule.ts";
import type { HuntRow, HuntRunRow } from "./hunt-store.ts";
import type { Hit } from "./hit-keys.ts";
import { checkPageSize, checkSkipLimit } from "../../platform/paging.ts";

const HuntTypeEnum = builder.enumType("HuntType", {
  values: Object.fromEntries(HUNT_TYPES.map((t) => [t.replace(/-/g, "_"), { value: t }])) as Record<string, { value: (typeof HUNT_TYPES)[number] }>,
});
const IndexTargetEnum = builder.enumType("HuntIndexTarget", { values: INDEX_TARGETS });
const StatusEnum = builder.enumType("HuntStatus", { values: HUNT_STATUSES });
const FrequencyEnum = builder.enumType("HuntFrequency", { values: HUNT_FREQUENCY_NAMES });

const HuntObject = builder.objectRef<HuntRow>("Hunt").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    userId: t.exposeInt("userId"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    query: t.exposeString("query"),
    huntType: t.field({ type: HuntTypeEnum, resolve: (h) => h.huntType }),
    indexTarget: t.field({ type: IndexTargetEnum, nullable: true, resolve: (h) => h.indexTarget }),
    status: t.field({ type: StatusEnum, resolve: (h) => h.status }),
    schedule: t.string({ nullable: true, description: "hourly, daily, weekly, custom (changed through the task routes) or null", resolve: (h) => frequencyOf(h) }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true }),
    nextRunAt: t.field({ type: "DateTime", nullable: true, resolve: (h) => (h.scheduleEnabled ? h.nextRunAt : null) }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, resolve: (h) => h.lastRunAt }),
    lastRunStatus: t.exposeString("lastRunStatus", { nullable: true }),
    lastRunError: t.exposeString("lastRunError", { nullable: true }),
    lastMatchCount: t.exposeInt("lastMatchCount", { nullable: true }),
    lastSuccessAt: t.field({ type: "DateTime", nullable: true, resolve: (h) => h.lastSuccessAt }),
    createdAt: t.field({ type: "DateTime", resolve: (h) => h.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (h) => h.updatedAt }),
  }),
});

const HuntPage = builder.objectRef<{ items: HuntRow[]; total: number; page: number; size: number; pages: number }>("HuntPage").implement({
  fields: (t) => ({
    items: t.field({ type: [HuntObject], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
  }),
});

const HuntResultObject = builder.objectRef<{ hunt: HuntRow; total: number; hits: Hit[]; runAt: Date }>("HuntResult").implement({
  fields: (t) => ({
    hunt: t.field({ type: HuntObject, resolve: (r) => r.hunt }),
    total: t.exposeInt("total"),
    hits: t.field({ type: ["JSON"], description: "Hits as the REST routes give them, each with is_new", resolve: (r) => r.hits }),
    runAt: t.field({ type: "DateTime", resolve: (r) => r.runAt }),
  }),
});

const HuntRunObject = builder.objectRef<HuntRunRow>("HuntRun").implement({
  fields: (t) => ({
    id: t.int({ resolve: (r) => Number(r.id) }),
    runAt: t.field({ type: "DateTime", resolve: (r) => r.runAt }),
    matchCount: t.exposeInt("matchCount", { nullable: true }),
    status: t.exposeString("status"),
    error: t.exposeString("error", { nullable: true }),
    trigger: t.exposeString("trigger"),
    newHitCount: t.exposeInt("newHitCount", { nullable: true }),
    durationMs: t.exposeInt("durationMs"),
    taskRunId: t.exposeString("taskRunId", { nullable: true }),
  }),
});

const HuntInputFields = (required: boolean) =>
  builder.inputType(required ? "CreateHuntInput" : "UpdateHuntInput", {
    fields: (t) => ({
      name: t.string({ required }),
      description: t.string(),
      query: t.string({ required }),
      huntType: t.field({ type: HuntTypeEnum }),
      indexTarget: t.field({ type: IndexTargetEnum }),
      status: t.field({ type: StatusEnum }),
      schedule: t.field({ type: FrequencyEnum, description: "hourly, daily or weekly; null removes the schedule" }),
    }),
  });
const CreateHuntInput = HuntInputFields(true);
const UpdateHuntInput = HuntInputFields(false);

type InputOf = { name?: string | null; description?: string | null; query?: string | null; huntType?: string | null; indexTarget?: (typeof INDEX_TARGETS)[number] | null; status?: (typeof HUNT_STATUSES)[number] | null; schedule?: (typeof HUNT_FREQUENCY_NAMES)[number] | null };

/** GraphQL gives null for "not given" and "cleared" alike: only description and schedule can be cleared. */
function toInput(i: InputOf, explicit: Set<string>) {
  return {
    name: i.name ?? undefined,
    description: explicit.has("description") ? (i.description ?? null) : undefined,
    query: i.query ?? undefined,
    huntType: i.huntType ?? undefined,
    indexTarget: i.indexTarget ?? undefined,
    status: i.status ?? undefined,
    schedule: explicit.has("schedule") ? (i.schedule ?? null) : undefined,
  };
}

builder.queryFields((t) => ({
  hunts: t.field({
    extensions: cost.page("size"),
    type: HuntPage,
    description: "Your hunts, newest first; administrators: all for everyone's, userId for one user's",
    args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: 50 }), filter: t.arg.string(), all: t.arg.boolean(), userId: t.arg.int() },
    resolve: (_r, a, ctx) =>
      ctx.services.hunts.list(caller(ctx), { name: a.filter ?? undefined, all: a.all ?? undefined, userId: a.userId ?? undefined }, checkPageSize(a, 50)),
  }),
  hunt: t.field({ type: HuntObject, args: { id: t.arg.int({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.hunts.get(caller(ctx), a.id) }),
  huntResults: t.field({
    type: HuntResultObject,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      const { hunt, result } = await ctx.services.hunts.results(caller(ctx), a.id);
      return { hunt, total: result.total, hits: result.hits, runAt: result.runAt };
    },
  }),
  huntHistory: t.field({
    extensions: cost.page("limit"),
    type: [HuntRunObject],
    args: { id: t.arg.int({ required: true }), skip: t.arg.int({ defaultValue: 0 }), limit: t.arg.int({ defaultValue: 100 }) },
    resolve: (_r, a, ctx) => {
      const { skip, limit } = checkSkipLimit(a);
      return ctx.services.hunts.history(caller(ctx), a.id, skip, limit);
    },
  }),
}));

builder.mutationFields((t) => ({
  createHunt: t.field({
    type: HuntObject,
    args: { input: t.arg({ type: CreateHuntInput, required: true }) },
    resolve: (_r, a, ctx) => {
      const input = toInput(a.input, new Set(Object.keys(a.input)));
      return ctx.services.hunts.create(caller(ctx), { ...input, name: input.name ?? "", query: input.query ?? "" });
    },
  }),
  updateHunt: t.field({
    type: HuntObject,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateHuntInput, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.hunts.update(caller(ctx), a.id, Object.fromEntries(Object.entries(toInput(a.input, new Set(Object.keys(a.input)))).filter(([, v]) => v !== undefined))),
  }),
  deleteHunt: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.hunts.delete(caller(ctx), a.id);
      return true;
    },
  }),
  runHunt: t.field({
    extensions: cost.search(),
    type: HuntResultObject,
    description: "Run the hunt now (as POST /hunts/{id}/run)",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      const r = await ctx.services.hunts.run(caller(ctx), a.id);
      return { hunt: r.hunt, total: r.total, hits: r.hits, runAt: r.run.runAt };
    },
  }),
  clearHuntHistory: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.hunts.clearHistory(caller(ctx), a.id);
      return true;
    },
  }),
}));
