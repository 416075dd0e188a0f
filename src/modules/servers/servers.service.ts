import type { AppContext } from "../../app-context.ts";
import { authorize, isAdmin, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, parseInput, snakeCase } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { SkipLimit } from "../../platform/paging.ts";
import type { AuditService } from "../audit/index.ts";
import type { EventsService } from "../events/index.ts";
import { queueRun, type RegisteredTask, type TaskRunRow } from "../tasks/index.ts";
import { RemoteError } from "./misp-client.ts";
import { clientFor, pullRulesOf, pushRulesOf, sealAuthkey } from "./remote.ts";
import { serverPullTask, serverPushTask } from "./server-tasks.ts";
import { eventUuidContract, previewPullContract, serverCreateContract, serverPatchContract, type PreviewPullInput, type PullRules, type PushRules, type ServerInput, type ServerPatch } from "./servers.contracts.ts";
import { actingFor, canAccessServer, canPull, canPush, PULL_SCOPES, PUSH_SCOPES, readableServerWhere, type ServerAction } from "./servers.policy.ts";
import { ServersRepository, type ServerRow } from "./servers.repository.ts";
import { emptyPullCounts, emptyPushCounts, previewPull, pullEvent, pushEvent, remoteOrganisation, type PreviewEntry, type PullCounts, type PushCounts, type SyncContext } from "./sync.ts";

/** A server as every answer shows it: the API key only as the fact that one is stored. */
export interface ServerView {
  id: number;
  name: string;
  url: string;
  authkeySet: true;
  orgId: number;
  pullEnabled: boolean;
  pushEnabled: boolean;
  internal: boolean;
  pullRules: PullRules;
  pushRules: PushRules;
  pullCursor: number;
  lastPulledAt: Date | null;
  lastPushedAt: Date | null;
  createdBy: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What test-connection found: the remote's version and the sync user's rights, or why it failed. */
export interface ConnectionReport {
  ok: boolean;
  version: string | null;
  permSync: boolean | null;
  user: string | null;
  organisation: { uuid: string; name: string } | null;
  /** Why the connection is not usable for sync, in words; empty when it is. */
  problems: string[];
}

function present(s: ServerRow): ServerView {
  const { authkeyCipher: _never, pullCursor, pullRules: _pull, pushRules: _push, ...rest } = s;
  return { ...rest, authkeySet: true, pullCursor: Number(pullCursor), pullRules: pullRulesOf(s), pushRules: pushRulesOf(s) };
}

/**
 * MISP servers to sync with (issue 26; the peer's /servers/). Who may do what is servers.policy.ts;
 * how a pull or push goes is sync.ts; the key is sealed here and opened only to make requests.
 */
export class ServersService {
  private readonly repo: ServersRepository;

  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
    private readonly events: EventsService,
  ) {
    this.repo = new ServersRepository(ctx.db.prisma, ctx.db.pool);
  }

  async list(p: Principal | null, page: SkipLimit): Promise<ServerView[]> {
    authorize(p, "servers:read");
    return (await this.repo.list(readableServerWhere(p), page.skip, page.limit)).map(present);
  }

  async listPage(p: Principal | null, req: PageRequest): Promise<Page<ServerView>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size });
    return pageOf(items, await this.repo.count(readableServerWhere(p!)), req);
  }

  async get(p: Principal | null, id: number): Promise<ServerView> {
    authorize(p, "servers:read");
    return present(await this.find(p, id, "read"));
  }

  async create(p: Principal | null, given: ServerInput): Promise<ServerView> {
    authorize(p, "servers:create");
    requireUser(p);
    const input = parseInput(serverCreateContract, given);
    const orgId = await this.ownerOrg(p, input.orgId);
    this.checkInternal(p, input.internal);
    const row = await this.repo.insert(
      {
        name: input.name, url: input.url, authkeyCipher: sealAuthkey(this.ctx, input.authkey), orgId,
        pullEnabled: input.pullEnabled ?? false, pushEnabled: input.pushEnabled ?? false, internal: input.internal ?? false, pullRules: input.pullRules ?? {}, pushRules: input.pushRules ?? {},
      },
      p.userId,
    );
    await this.audit.record(p, { action: "server.created", resourceType: "server", resourceId: row.id, metadata: { name: row.name, url: row.url } });
    return present(row);
  }

  /** A new authkey replaces the stored one; changed pull rules start the next pull from the beginning (the cursor was theirs). */
  async update(p: Principal | null, id: number, given: ServerPatch): Promise<ServerView> {
    authorize(p, "servers:update");
    const patch = parseInput(serverPatchContract, given);
    const current = await this.find(p, id, "update");
    const orgId = patch.orgId === undefined ? current.orgId : await this.ownerOrg(p, patch.orgId);
    this.checkInternal(p, patch.internal ?? (current.internal && patch.url !== undefined && patch.url !== current.url));
    const pullRules = patch.pullRules ?? pullRulesOf(current);
    const row = await this.repo.update(id, {
      name: patch.name ?? current.name,
      url: patch.url ?? current.url,
      authkeyCipher: patch.authkey === undefined ? current.authkeyCipher : sealAuthkey(this.ctx, patch.authkey),
      orgId,
      pullEnabled: patch.pullEnabled ?? current.pullEnabled,
      pushEnabled: patch.pushEnabled ?? current.pushEnabled,
      internal: patch.internal ?? current.internal,
      pullRules,
      pushRules: patch.pushRules ?? pushRulesOf(current),
    });
    const restart = (patch.pullRules !== undefined && JSON.stringify(pullRules) !== JSON.stringify(pullRulesOf(current))) || orgId !== current.orgId || (patch.url !== undefined && patch.url !== current.url);
    if (restart) await this.repo.resetCursor(id);
    await this.audit.record(p, { action: "server.updated", resourceType: "server", resourceId: id, metadata: { fields: Object.keys(patch).map(snakeCase) } });
    return present((await this.repo.find(id)) ?? row);
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "servers:delete");
    await this.find(p, id, "delete");
    await this.repo.delete(id, [serverPullTask.name, serverPushTask.name]);
    await this.audit.record(p, { action: "server.deleted", resourceType: "server", resourceId: id });
  }

  /** Asks the remote who we are there; a failure is the report's answer, not an error of this request. */
  async testConnection(p: Principal | null, id: number): Promise<ConnectionReport> {
    authorize(p, "servers:test");
    const server = await this.find(p, id, "test");
    const report: ConnectionReport = { ok: false, version: null, permSync: null, user: null, organisation: null, problems: [] };
    try {
      const client = await clientFor(this.ctx, server);
      const version = (await client.get("servers/getVersion")) as { version?: unknown; perm_sync?: unknown } | null;
      report.version = typeof version?.version === "string" ? version.version.slice(0, 40) : null;
      report.permSync = version?.perm_sync === true;
      const me = (await client.get("users/view/me")) as { User?: { email?: unknown }; Organisation?: { uuid?: unknown; name?: unknown } } | null;
      report.user = typeof me?.User?.email === "string" ? me.User.email.slice(0, 255) : null;
      const org = me?.Organisation;
      if (typeof org?.uuid === "string" && typeof org.name === "string") report.organisation = { uuid: org.uuid.slice(0, 64), name: org.name.slice(0, 255) };
      if (!report.version) report.problems.push("the remote did not say its MISP version");
      if (!report.permSync) report.problems.push("the remote user has no sync permission (perm_sync): pushed events would be the remote user's organisation's, not their creator's");
      if (!report.organisation) report.problems.push("the remote did not name the user's organisation: pushes cannot check sharing groups");
      report.ok = report.version !== null && report.organisation !== null;
    } catch (err) {
      if (!(err instanceof RemoteError)) throw err;
      report.problems.push(err.status === 401 || err.status === 403 ? `the remote refused the API key (${err.message})` : err.message);
    }
    return report;
  }

  async previewPull(p: Principal | null, id: number, given: PreviewPullInput = {}): Promise<{ total: number; events: PreviewEntry[] }> {
    authorize(p, "servers:read");
    const input = parseInput(previewPullContract, given);
    const server = await this.find(p, id, "read");
    return this.remote(() => clientFor(this.ctx, server).then((client) => previewPull({ client, server, repo: this.repo }, pullRulesOf(server), input.limit ?? 100)));
  }

  /** A pull of everything the rules take, as a task run (its progress and counts are the run's). */
  async pull(p: Principal | null, id: number): Promise<TaskRunRow> {
    authorize(p, ...PULL_SCOPES);
    requireUser(p);
    const server = await this.repo.find(id);
    if (!server || !canPull(p, server)) throw errors.notFound("Server");
    return this.queue(p, serverPullTask, id);
  }

  async push(p: Principal | null, id: number): Promise<TaskRunRow> {
    authorize(p, ...PUSH_SCOPES);
    requireUser(p);
    const server = await this.repo.find(id);
    if (!server || !canPush(p, server)) throw errors.notFound("Server");
    return this.queue(p, serverPushTask, id);
  }

  /** One remote event by uuid, now, whatever the rules say (the cursor stays). 404 when the remote does not show it. */
  async pullEvent(p: Principal | null, id: number, uuid: string): Promise<PullCounts> {
    authorize(p, ...PULL_SCOPES);
    const eventUuid = parseInput(eventUuidContract, uuid);
    const server = await this.repo.find(id);
    if (!server || !canPull(p, server)) throw errors.notFound("Server");
    const counts = emptyPullCounts(Number(server.pullCursor));
    const found = await this.remote(async () => pullEvent(await this.sync(server, actingFor(p, server)), eventUuid, counts));
    if (!found) throw errors.notFound("Remote event");
    await this.audit.record(p, { action: "server.pulled_event", resourceType: "server", resourceId: id, metadata: { event_uuid: eventUuid } });
    return counts;
  }

  /** One of the organisation's events, now, as the push rules and its distribution allow. */
  async pushEvent(p: Principal | null, id: number, uuid: string): Promise<PushCounts> {
    authorize(p, ...PUSH_SCOPES);
    const eventUuid = parseInput(eventUuidContract, uuid);
    const server = await this.repo.find(id);
    if (!server || !canPush(p, server)) throw errors.notFound("Server");
    const owned = await this.repo.localTimestamps([eventUuid]);
    if (owned.get(eventUuid)?.orgId !== server.orgId) throw errors.notFound("Event");
    const counts = emptyPushCounts();
    await this.remote(async () => {
      const x = await this.sync(server, p);
      await pushEvent(x, eventUuid, await remoteOrganisation(x.client), pushRulesOf(server), counts);
    });
    await this.audit.record(p, { action: "server.pushed_event", resourceType: "server", resourceId: id, metadata: { event_uuid: eventUuid } });
    return counts;
  }

  private async sync(server: ServerRow, principal: Principal): Promise<SyncContext> {
    return { events: this.events, repo: this.repo, client: await clientFor(this.ctx, server), server, principal, progress: async () => undefined };
  }

  /** A remote failure inside a request is a 502 naming it (never the key). */
  private async remote<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RemoteError) throw errors.upstreamUnavailable(err.message);
      throw err;
    }
  }

  private queue(p: Principal & { userId: number }, task: RegisteredTask, serverId: number): Promise<TaskRunRow> {
    return withTransaction(this.ctx.db.pool, (client) =>
      queueRun(client, { scheduledTaskId: null, task: task.name, args: [], kwargs: { server_id: serverId }, trigger: "manual", runAsUserId: p.userId, grantScopes: scopesOf(p) }, task),
    );
  }

  /** The server when the caller may act on it; 404 otherwise, so other organisations' servers do not show. */
  private async find(p: Principal, id: number, action: ServerAction): Promise<ServerRow> {
    const server = await this.repo.find(id);
    if (!server || !canAccessServer(p, server, action)) throw errors.notFound("Server");
    return server;
  }

  /**
   * Marking a server internal keeps remote community-only data community-only here, for every
   * organisation: the administrators' call, as in MISP. Pointing an internal server elsewhere is too.
   */
  private checkInternal(p: Principal, internal: boolean | undefined): void {
    if (internal && !isAdmin(p)) throw errors.invalidInput(["internal"], "only administrators may mark a server internal or change an internal server's URL", internal);
  }

  /** Your organisation, or for administrators any existing one. */
  private async ownerOrg(p: Principal, orgId: number | undefined): Promise<number> {
    if (orgId === undefined) {
      if (p.orgId === null) throw errors.invalidInput(["orgId"], "required: you belong to no organisation");
      return p.orgId;
    }
    if (orgId !== p.orgId && !isAdmin(p)) throw errors.invalidInput(["orgId"], "only administrators may add servers for another organisation", orgId);
    if (!(await this.repo.organisationExists(orgId))) throw errors.invalidInput(["orgId"], "no such organisation", orgId);
    return orgId;
  }
}
