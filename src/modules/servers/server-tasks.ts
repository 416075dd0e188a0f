import { errors } from "../../platform/errors.ts";
import type { RegisteredTask, TaskExecution } from "../tasks/index.ts";
import { clientFor, pullRulesOf, pushRulesOf } from "./remote.ts";
import { RemoteError } from "./misp-client.ts";
import { ServersRepository } from "./servers.repository.ts";
import { actingFor, canPull, canPush, PULL_SCOPES, PUSH_SCOPES } from "./servers.policy.ts";
import { pullAll, pushAll } from "./sync.ts";

/**
 * Tasks `server_pull` and `server_push` (kwargs `server_id`): a pull or push of every event, as the
 * run's user. Only a server the user may pull from (push to) can be scheduled, and each run checks
 * again as the user is now. A scheduled run of a server whose pull (push) is disabled does nothing
 * and says so. A remote failure fails the attempt; the next one resumes from the pull cursor.
 */
function checkParams(args: unknown[], kwargs: Record<string, unknown>, where: (string | number)[]): void {
  if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes keyword arguments only", args);
  const extra = Object.keys(kwargs).filter((k) => k !== "server_id" && k !== "user_id");
  if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "unknown keyword argument", kwargs[extra[0]]);
  const id = kwargs.server_id;
  if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > 2_147_483_647) throw errors.invalidField([...where, "kwargs", "server_id"], "must be a server id", id);
}

const repoOf = (x: Pick<TaskExecution, "app">) => new ServersRepository(x.app.db.prisma, x.app.db.pool);

async function serverOfRun(x: TaskExecution, allowed: typeof canPull) {
  const server = await repoOf(x).find(x.run.kwargs.server_id as number);
  if (!server || !allowed(x.principal, server)) throw errors.notFound("Server");
  return server;
}

const remoteFailure = (err: unknown) => (err instanceof RemoteError ? errors.upstreamUnavailable(err.message) : err);

export const serverPullTask: RegisteredTask = {
  name: "server_pull",
  description: "Pull the events a MISP server's pull rules take, from its cursor on (kwargs: server_id).",
  requiredScopes: PULL_SCOPES,
  maxAttempts: 3,
  checkParams,
  async checkTarget(app, p, _args, kwargs, where) {
    const server = await repoOf({ app }).find(kwargs.server_id as number);
    if (!server || !canPull(p, server)) throw errors.invalidField([...where, "kwargs", "server_id"], "no such server of your organisation", kwargs.server_id);
  },
  async execute(x) {
    const server = await serverOfRun(x, canPull);
    if (x.run.trigger === "schedule" && !server.pullEnabled) return { server_id: server.id, skipped: "pull is disabled on this server" };
    const repo = repoOf(x);
    try {
      const counts = await pullAll({ events: x.services.events, repo, client: await clientFor(x.app, server), server, principal: actingFor(x.principal, server), progress: (c) => x.saveProgress(c) }, pullRulesOf(server));
      await repo.markPulled(server.id);
      return { server_id: server.id, ...counts };
    } catch (err) {
      throw remoteFailure(err);
    }
  },
};

export const serverPushTask: RegisteredTask = {
  name: "server_push",
  description: "Push the organisation's events a MISP server's push rules and their distribution allow (kwargs: server_id).",
  requiredScopes: PUSH_SCOPES,
  maxAttempts: 3,
  checkParams,
  async checkTarget(app, p, _args, kwargs, where) {
    const server = await repoOf({ app }).find(kwargs.server_id as number);
    if (!server || !canPush(p, server)) throw errors.invalidField([...where, "kwargs", "server_id"], "no such server of your organisation", kwargs.server_id);
  },
  async execute(x) {
    const server = await serverOfRun(x, canPush);
    if (x.run.trigger === "schedule" && !server.pushEnabled) return { server_id: server.id, skipped: "push is disabled on this server" };
    const repo = repoOf(x);
    try {
      const counts = await pushAll({ events: x.services.events, repo, client: await clientFor(x.app, server), server, principal: x.principal, progress: (c) => x.saveProgress(c) }, pushRulesOf(server));
      await repo.markPushed(server.id);
      return { server_id: server.id, ...counts };
    } catch (err) {
      throw remoteFailure(err);
    }
  },
};
