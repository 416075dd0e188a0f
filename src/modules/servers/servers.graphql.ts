import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { taskRunRecord } from "../tasks/index.ts";
import { TaskRunType } from "../tasks/tasks.graphql.ts";
import { previewPullContract, pullRulesContract, pushRulesContract, serverCreateContract, serverPatchContract, type PullRules, type PushRules } from "./servers.contracts.ts";
import { RULES_DOC as R, SERVER_DOC as D } from "./servers.docs.ts";
import type { ConnectionReport, ServerView } from "./servers.service.ts";
import type { PreviewEntry, PullCounts, PushCounts } from "./sync.ts";

type Filter = { include?: string[]; exclude?: string[] };

const FilterType = builder.objectRef<Filter>("ServerRuleFilter").implement({
  description: "Names to include (at least one) and exclude (none)",
  fields: (t) => ({
    include: t.stringList({ description: R.include, resolve: (f) => f.include ?? [] }),
    exclude: t.stringList({ description: R.exclude, resolve: (f) => f.exclude ?? [] }),
  }),
});

const PullRulesType = builder.objectRef<PullRules>("ServerPullRules").implement({
  description: D.pullRules,
  fields: (t) => ({
    tags: t.field({ type: FilterType, nullable: true, description: R.tags, resolve: (r) => r.tags ?? null }),
    orgs: t.field({ type: FilterType, nullable: true, description: R.orgs, resolve: (r) => r.orgs ?? null }),
    since: t.int({ nullable: true, description: R.since, resolve: (r) => r.since ?? null }),
    publishedOnly: t.boolean({ description: R.publishedOnly, resolve: (r) => r.publishedOnly ?? true }),
  }),
});

const PushRulesType = builder.objectRef<PushRules>("ServerPushRules").implement({
  description: D.pushRules,
  fields: (t) => ({
    tags: t.field({ type: FilterType, nullable: true, description: R.tags, resolve: (r) => r.tags ?? null }),
    orgs: t.field({ type: FilterType, nullable: true, description: R.orgs, resolve: (r) => r.orgs ?? null }),
    publishedOnly: t.boolean({ description: R.publishedOnly, resolve: (r) => r.publishedOnly ?? true }),
    maxDistribution: t.int({ description: R.maxDistribution, resolve: (r) => r.maxDistribution ?? 3 }),
  }),
});

const ServerType = builder.objectRef<ServerView>("Server").implement({
  description: "A MISP server to pull from and push to (GET /servers/); its API key is write-only",
  fields: (t) => ({
    id: t.exposeInt("id", { description: D.id }),
    name: t.exposeString("name", { description: D.name }),
    url: t.exposeString("url", { description: D.url }),
    authkeySet: t.boolean({ description: `${D.authkeySet} (REST authkey_set)`, resolve: () => true }),
    orgId: t.exposeInt("orgId", { description: `${D.orgId} (REST org_id)` }),
    pullEnabled: t.exposeBoolean("pullEnabled", { description: `${D.pullEnabled} (REST pull_enabled)` }),
    pushEnabled: t.exposeBoolean("pushEnabled", { description: `${D.pushEnabled} (REST push_enabled)` }),
    internal: t.exposeBoolean("internal", { description: D.internal }),
    pullRules: t.field({ type: PullRulesType, description: `${D.pullRules} (REST pull_rules)`, resolve: (s) => s.pullRules }),
    pushRules: t.field({ type: PushRulesType, description: `${D.pushRules} (REST push_rules)`, resolve: (s) => s.pushRules }),
    pullCursor: t.exposeInt("pullCursor", { description: `${D.pullCursor} (REST pull_cursor)` }),
    lastPulledAt: t.expose("lastPulledAt", { type: "DateTime", nullable: true, description: `${D.lastPulledAt} (REST last_pulled_at)` }),
    lastPushedAt: t.expose("lastPushedAt", { type: "DateTime", nullable: true, description: `${D.lastPushedAt} (REST last_pushed_at)` }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: `${D.createdAt} (REST created_at)` }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: `${D.updatedAt} (REST updated_at)` }),
  }),
});

const ServerPage = pageType("ServerPage", ServerType, "MISP servers");

const ConnectionType = builder.objectRef<ConnectionReport>("ServerConnection").implement({
  description: "What test-connection found (POST /servers/{id}/test-connection)",
  fields: (t) => ({
    ok: t.exposeBoolean("ok", { description: "True: the remote answered as a MISP and named the sync user's organisation" }),
    version: t.exposeString("version", { nullable: true, description: "The remote's MISP version" }),
    permSync: t.exposeBoolean("permSync", { nullable: true, description: "Whether the remote user holds MISP's sync permission (REST perm_sync)" }),
    user: t.exposeString("user", { nullable: true, description: "The remote user's e-mail" }),
    organisationName: t.string({ nullable: true, description: "The remote user's organisation's name", resolve: (r) => r.organisation?.name ?? null }),
    organisationUuid: t.string({ nullable: true, description: "The remote user's organisation's uuid", resolve: (r) => r.organisation?.uuid ?? null }),
    problems: t.exposeStringList("problems", { description: "Why the connection is not usable for sync, in words; empty when it is" }),
  }),
});

const PreviewEntryType = builder.objectRef<PreviewEntry>("ServerPullPreviewEvent").implement({
  description: "A remote event the next pull would take",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The event's uuid (kept when pulled)" }),
    timestamp: t.exposeInt("timestamp", { description: "The remote's timestamp of the event (epoch seconds)" }),
    published: t.exposeBoolean("published", { description: "Published on the remote" }),
    info: t.exposeString("info", { description: "The event's title" }),
    orgc: t.exposeString("orgc", { description: "The creator organisation's name" }),
    distribution: t.exposeInt("distribution", { description: "The event's distribution on the remote" }),
    tags: t.exposeStringList("tags", { description: "The event's tag names" }),
    storedTimestamp: t.int({ nullable: true, description: "The timestamp of the copy stored here, or null (REST stored_timestamp)", resolve: (e) => e.stored_timestamp }),
  }),
});

const PreviewType = builder.objectRef<{ total: number; events: PreviewEntry[] }>("ServerPullPreview").implement({
  description: "The remote events a pull would take now, nothing written (POST /servers/{id}/preview-pull)",
  fields: (t) => ({
    total: t.exposeInt("total", { description: "How many remote events the next pull would consider" }),
    events: t.field({ type: [PreviewEntryType], description: "The first of them, oldest change first", resolve: (p) => p.events }),
  }),
});

const countsJson = "The counts, as the task run's result (JSON: events_created, events_updated, events_unchanged, rejected, rejections ...)";

const FilterInput = builder.inputType("ServerRuleFilterInput", {
  description: "Names to include (at least one) and exclude (none)",
  fields: (t) => ({ include: t.stringList({ description: R.include }), exclude: t.stringList({ description: R.exclude }) }),
});
const PullRulesInput = builder.inputType("ServerPullRulesInput", {
  description: D.pullRules,
  fields: (t) => ({
    tags: t.field({ type: FilterInput, description: R.tags }),
    orgs: t.field({ type: FilterInput, description: R.orgs }),
    since: t.int({ description: R.since }),
    publishedOnly: t.boolean({ description: R.publishedOnly }),
  }),
});
const PushRulesInput = builder.inputType("ServerPushRulesInput", {
  description: D.pushRules,
  fields: (t) => ({
    tags: t.field({ type: FilterInput, description: R.tags }),
    orgs: t.field({ type: FilterInput, description: R.orgs }),
    publishedOnly: t.boolean({ description: R.publishedOnly }),
    maxDistribution: t.int({ description: R.maxDistribution }),
  }),
});
const ServerFields = builder.inputType("ServerFields", {
  description: "A MISP server's fields: create needs name, url and authkey; update changes the ones given",
  fields: (t) => ({
    name: t.string({ description: D.name }),
    url: t.string({ description: D.url }),
    authkey: t.string({ description: D.authkey }),
    orgId: t.int({ description: D.orgId }),
    pullEnabled: t.boolean({ description: D.pullEnabled }),
    pushEnabled: t.boolean({ description: D.pushEnabled }),
    internal: t.boolean({ description: D.internal }),
    pullRules: t.field({ type: PullRulesInput, description: D.pullRules }),
    pushRules: t.field({ type: PushRulesInput, description: D.pushRules }),
  }),
});

/** GraphQL's nulls are "not given" for the contracts. */
function defined(o: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(o)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === "object" && !Array.isArray(v) ? defined(v as object) : v]),
  );
}

/** The rules checked by their own contracts, so a 422 names the field under pullRules / pushRules. */
function fieldsOf(f: { pullRules?: object | null; pushRules?: object | null }): Record<string, unknown> {
  const { pullRules, pushRules, ...rest } = f;
  return {
    ...defined(rest),
    ...(pullRules ? { pullRules: contractInput(pullRulesContract, defined(pullRules), ["pullRules"]) } : {}),
    ...(pushRules ? { pushRules: contractInput(pushRulesContract, defined(pushRules), ["pushRules"]) } : {}),
  };
}

const SERVER_ID = "The server's numeric id";
const EVENT_UUID = "The event's uuid";

builder.queryFields((t) => ({
  servers: t.field({
    extensions: cost.page("size", 50),
    type: ServerPage,
    description: "Your organisation's MISP servers (administrators: every one), by id (GET /servers/)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx) => ctx.services.servers.listPage(caller(ctx), checkPageSize({ page: a.page, size: a.size }, 50)),
  }),
  server: t.field({
    type: ServerType,
    description: "One MISP server of your organisation (GET /servers/{id})",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }) },
    resolve: (_r, a, ctx) => ctx.services.servers.get(caller(ctx), a.id),
  }),
  previewServerPull: t.field({
    type: PreviewType,
    description: "The remote events the next pull would take, nothing written (POST /servers/{id}/preview-pull)",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }), limit: t.arg.int({ description: "Events to list, 1 to 1000 (default 100)" }) },
    resolve: (_r, a, ctx) => ctx.services.servers.previewPull(caller(ctx), a.id, contractInput(previewPullContract, defined({ limit: a.limit }))),
  }),
}));

builder.mutationFields((t) => ({
  createServer: t.field({
    type: ServerType,
    description: "Add a MISP server for your organisation (POST /servers/)",
    args: { input: t.arg({ type: ServerFields, required: true, description: "The server: name, url and authkey required" }) },
    resolve: (_r, a, ctx) => ctx.services.servers.create(caller(ctx), contractInput(serverCreateContract, fieldsOf(a.input))),
  }),
  updateServer: t.field({
    type: ServerType,
    description: "Change a MISP server (PATCH /servers/{id})",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }), input: t.arg({ type: ServerFields, required: true, description: "The fields to change" }) },
    resolve: (_r, a, ctx) => ctx.services.servers.update(caller(ctx), a.id, contractInput(serverPatchContract, fieldsOf(a.input))),
  }),
  deleteServer: t.boolean({
    description: "Delete a MISP server and its schedules; true when done (DELETE /servers/{id})",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.servers.delete(caller(ctx), a.id);
      return true;
    },
  }),
  testServerConnection: t.field({
    type: ConnectionType,
    description: "Ask the remote its version and who the key is (POST /servers/{id}/test-connection)",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }) },
    resolve: (_r, a, ctx) => ctx.services.servers.testConnection(caller(ctx), a.id),
  }),
  pullServer: t.field({
    type: TaskRunType,
    description: "Pull now, as you: the queued server_pull run, whose progress and counts taskRun(id) shows (POST /servers/{id}/pull)",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }) },
    resolve: async (_r, a, ctx) => taskRunRecord(await ctx.services.servers.pull(caller(ctx), a.id)),
  }),
  pushServer: t.field({
    type: TaskRunType,
    description: "Push now, as you: the queued server_push run (POST /servers/{id}/push)",
    args: { id: t.arg.int({ required: true, description: SERVER_ID }) },
    resolve: async (_r, a, ctx) => taskRunRecord(await ctx.services.servers.push(caller(ctx), a.id)),
  }),
  pullServerEvent: t.field({
    type: "JSON",
    description: `Pull one remote event by uuid now (POST /servers/{id}/events/{uuid}/pull). ${countsJson}`,
    args: { id: t.arg.int({ required: true, description: SERVER_ID }), uuid: t.arg.string({ required: true, description: EVENT_UUID }) },
    resolve: async (_r, a, ctx): Promise<PullCounts> => ctx.services.servers.pullEvent(caller(ctx), a.id, a.uuid),
  }),
  pushServerEvent: t.field({
    type: "JSON",
    description: `Push one of the organisation's events now (POST /servers/{id}/events/{uuid}/push). ${countsJson}`,
    args: { id: t.arg.int({ required: true, description: SERVER_ID }), uuid: t.arg.string({ required: true, description: EVENT_UUID }) },
    resolve: async (_r, a, ctx): Promise<PushCounts> => ctx.services.servers.pushEvent(caller(ctx), a.id, a.uuid),
  }),
}));
