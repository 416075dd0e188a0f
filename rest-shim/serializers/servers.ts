import { z } from "zod";
import { RULES_DOC as R, SERVER_DOC as D } from "../../src/modules/servers/index.ts";
import type { ConnectionReport, PreviewEntry, PullCounts, PushCounts, ServerView } from "../../src/modules/servers/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";
import { TaskRunSchema, type TaskRunOut } from "./tasks.ts";

const filter = z.object({ include: z.array(z.string()).optional().describe(R.include), exclude: z.array(z.string()).optional().describe(R.exclude) });

export const ServerSchema = named(
  "Server",
  z.object({
    id: z.int().describe(D.id),
    name: z.string().describe(D.name),
    url: z.string().describe(D.url),
    authkey_set: z.literal(true).describe(D.authkeySet),
    org_id: z.int().describe(D.orgId),
    pull_enabled: z.boolean().describe(D.pullEnabled),
    push_enabled: z.boolean().describe(D.pushEnabled),
    internal: z.boolean().describe(D.internal),
    pull_rules: z
      .object({ tags: filter.optional().describe(R.tags), orgs: filter.optional().describe(R.orgs), since: z.int().nullable().optional().describe(R.since), published_only: z.boolean().optional().describe(R.publishedOnly) })
      .describe(D.pullRules),
    push_rules: z
      .object({ tags: filter.optional().describe(R.tags), orgs: filter.optional().describe(R.orgs), published_only: z.boolean().optional().describe(R.publishedOnly), max_distribution: z.int().optional().describe(R.maxDistribution) })
      .describe(D.pushRules),
    pull_cursor: z.int().describe(D.pullCursor),
    last_pulled_at: nullableTimestamp.describe(D.lastPulledAt),
    last_pushed_at: nullableTimestamp.describe(D.lastPushedAt),
    created_by: z.int().nullable(),
    created_at: timestamp.describe(D.createdAt),
    updated_at: timestamp.describe(D.updatedAt),
  }),
  "A MISP server to pull from and push to; its API key is write-only (authkey_set says one is stored)",
);

const rulesOut = <T extends { publishedOnly?: boolean; maxDistribution?: number }>(r: T) => {
  const { publishedOnly, maxDistribution, ...rest } = r;
  return { ...rest, ...(publishedOnly === undefined ? {} : { published_only: publishedOnly }), ...(maxDistribution === undefined ? {} : { max_distribution: maxDistribution }) };
};

export function serverOut(s: ServerView): z.output<typeof ServerSchema> {
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    authkey_set: true,
    org_id: s.orgId,
    pull_enabled: s.pullEnabled,
    push_enabled: s.pushEnabled,
    internal: s.internal,
    pull_rules: rulesOut(s.pullRules),
    push_rules: rulesOut(s.pushRules),
    pull_cursor: s.pullCursor,
    last_pulled_at: s.lastPulledAt?.toISOString() ?? null,
    last_pushed_at: s.lastPushedAt?.toISOString() ?? null,
    created_by: s.createdBy,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export const ServerConnectionSchema = named(
  "ServerConnection",
  z.object({
    ok: z.boolean().describe("True: the remote answered as a MISP and named the sync user's organisation"),
    version: z.string().nullable().describe("The remote's MISP version (servers/getVersion)"),
    perm_sync: z.boolean().nullable().describe("Whether the remote user holds MISP's sync permission"),
    user: z.string().nullable().describe("The remote user's e-mail (users/view/me)"),
    organisation: z.object({ uuid: z.string(), name: z.string() }).nullable().describe("The remote user's organisation"),
    problems: z.array(z.string()).describe("Why the connection is not usable for sync, in words; empty when it is"),
  }),
  "What test-connection found",
);

export const serverConnectionOut = (r: ConnectionReport): z.output<typeof ServerConnectionSchema> => ({
  ok: r.ok, version: r.version, perm_sync: r.permSync, user: r.user, organisation: r.organisation, problems: r.problems,
});

export const ServerPreviewSchema = named(
  "ServerPullPreview",
  z.object({
    total: z.int().describe("How many remote events the next pull would consider"),
    events: z.array(
      z.object({
        uuid: z.string(),
        timestamp: z.int(),
        published: z.boolean(),
        info: z.string(),
        orgc: z.string().describe("The creator organisation's name"),
        distribution: z.number(),
        tags: z.array(z.string()),
        stored_timestamp: z.int().nullable().describe("The timestamp of the copy stored here, or null"),
      }),
    ),
  }),
  "The remote events a pull would take now (rules applied, from the cursor on, oldest change first), nothing written",
);

export const serverPreviewOut = (p: { total: number; events: PreviewEntry[] }): z.output<typeof ServerPreviewSchema> => p;

const rejections = z.array(z.object({ uuid: z.string(), reason: z.string() }));

export const ServerPullResultSchema = named(
  "ServerPullResult",
  z.object({
    listed: z.int(), taken: z.int(), events_created: z.int(), events_updated: z.int(), events_unchanged: z.int(),
    attributes_created: z.int(), attributes_updated: z.int(), rejected: z.int(), rejections, cursor: z.int(),
  }),
  "What a pull of one event did",
);

export const ServerPushResultSchema = named(
  "ServerPushResult",
  z.object({
    considered: z.int(), events_created: z.int(), events_updated: z.int(), events_unchanged: z.int(),
    skipped: z.int().describe("Left out by the push rules"), refused: z.int().describe("Not allowed to the remote organisation by its distribution"), rejected: z.int(), rejections,
  }),
  "What a push of one event did",
);

export const pullResultOut = (c: PullCounts): z.output<typeof ServerPullResultSchema> => c;
export const pushResultOut = (c: PushCounts): z.output<typeof ServerPushResultSchema> => c;

export const ServerSyncStartedSchema = named(
  "ServerSyncStarted",
  z.object({
    task: z.object({ id: z.uuid(), name: z.string(), status: TaskRunSchema.shape.status }).describe("The run, in the peer's shape"),
    run: TaskRunSchema,
  }),
  "A pull or push queued now: its run, whose progress and counts GET /tasks/{task_id} shows",
);

export const syncStartedOut = (run: TaskRunOut): z.output<typeof ServerSyncStartedSchema> => ({ task: { id: run.id, name: run.task, status: run.status }, run });
