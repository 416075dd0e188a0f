import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { runAsPrincipal } from "../../auth/run-as.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { AppError, errors, InputError, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { searchLimiterOf } from "../search/index.ts";
import type { HuntEngine } from "./hunt-engine.ts";
import { indexTargetFor, normaliseHuntType, validateQuery } from "./hunt-definition.ts";
import { setHuntFrequency, type HuntCron, type HuntFrequency } from "./hunt-schedule.ts";
import { executeHunt, type RunOutcome } from "./hunt-runs.ts";
import type { Hit } from "./hit-keys.ts";
import {
  cachedResult,
  cachedResultPage,
  clearHistory,
  countRuns,
  deleteHunt,
  findHunt,
  huntRowOf,
  insertHunt,
  listRuns,
  updateHunt,
  type CachedResult,
  type HuntFields,
  type HuntRow,
  type HuntRunRow,
} from "./hunt-store.ts";
import { canListOthersHunts, canManageHunt, managedHuntWhere } from "./hunts.policy.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import type { Hunt, Prisma, ScheduledTask } from "../../generated/prisma/client.ts";
import { cronFieldsOf, huntCreateContract, huntListContract, huntPatchContract, type HuntInput, type HuntListQuery, type HuntPatch } from "./hunts.contracts.ts";

export type { HuntInput, HuntPatch } from "./hunts.contracts.ts";

/** What a GraphQL selection asks to load with hunts (@pothos/plugin-prisma's query). */
export type HuntSelection = Pick<Prisma.HuntFindManyArgs, "include" | "select">;

export type HuntRunResult = { hunt: HuntRow; total: number; hits: Hit[]; run: HuntRunRow };

/**
 * Hunts (spec 2.2, 4.2, 4.3): owned by their creator, whom every operation checks (another user's
 * hunt is not found); administrators may see and manage all of them. A run always searches with
 * the owner's access: the owner's own credential when they run it, their current role otherwise.
 */
export class HuntsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
    /** Shared with the worker's run_hunt task. */
    private readonly engine: HuntEngine,
  ) {}

  /** The page of `page()`, each hunt with its schedule, in one read (REST's and MCP's list). */
  async list(p: Principal | null, given: HuntListQuery): Promise<Page<HuntRow>> {
    const page = await this.page(p, given, { include: { scheduledTask: true } });
    return { ...page, items: (page.items as (Hunt & { scheduledTask: ScheduledTask | null })[]).map(huntRowOf) };
  }

  async get(p: Principal | null, id: number): Promise<HuntRow> {
    authorize(p, "hunts:read");
    return this.visible(p, await findHunt(this.ctx.db.pool, id));
  }

  async create(p: Principal | null, given: HuntInput): Promise<HuntRow> {
    authorize(p, "hunts:create");
    requireUser(p);
    const input = parseInput(huntCreateContract, given);
    const schedule = scheduleOf(input);
    if (schedule) authorize(p, "hunts:run");
    const fields = definition(input, null);
    const id = await withTransaction(this.ctx.db.pool, async (client) => {
      const huntId = await insertHunt(client, p.userId, fields);
      if (schedule) {
        await setHuntFrequency(client, { id: huntId, userId: p.userId, name: fields.name, scheduledTaskId: null, scheduleSeconds: null }, schedule, scopesOf(p));
      }
      return huntId;
    });
    await this.audit.record(p, { action: "hunt.created", resourceType: "hunt", resourceId: id, metadata: { name: fields.name, hunt_type: fields.huntType } });
    return (await findHunt(this.ctx.db.pool, id))!;
  }

  /** PATCH semantics: only what is given changes; a new query, type or target starts the hunt afresh. */
  async update(p: Principal | null, id: number, given: HuntPatch): Promise<HuntRow> {
    authorize(p, "hunts:update");
    const patch = parseInput(huntPatchContract, given);
    const schedule = scheduleOf(patch);
    if (schedule) authorize(p, "hunts:run");
    await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findHunt(client, id, true));
      const fields = definition(patch, current);
      const newQuestion = fields.query !== current.query || fields.huntType !== current.huntType || fields.indexTarget !== current.indexTarget;
      await updateHunt(client, id, fields, newQuestion);
      if (schedule !== undefined) {
        await setHuntFrequency(client, { ...current, name: fields.name }, schedule, current.userId === p.userId ? scopesOf(p) : ["*"]);
      }
    });
    await this.audit.record(p, { action: "hunt.updated", resourceType: "hunt", resourceId: id, metadata: { fields: Object.keys(patch) } });
    return (await findHunt(this.ctx.db.pool, id))!;
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "hunts:delete");
    const hunt = await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findHunt(client, id, true));
      await deleteHunt(client, id);
      return current;
    });
    await this.audit.record(p, { action: "hunt.deleted", resourceType: "hunt", resourceId: id, metadata: { name: hunt.name, owner_id: hunt.userId } });
  }

  /**
   * `POST /hunts/{id}/run`: runs now and answers the result set. A failed run is recorded and
   * answered as its error (503 when an external service failed, 400 for unknown techniques). It is
   * one of the caller's concurrent searches: over their limit, 429 and nothing is recorded.
   */
  async run(p: Principal | null, id: number): Promise<HuntRunResult> {
    authorize(p, "hunts:run");
    const hunt = this.visible(p, await findHunt(this.ctx.db.pool, id));
    const runAs = await this.ownerAccess(p, hunt);
    const outcome = await searchLimiterOf(this.ctx).run(p, () => executeHunt(this.ctx, this.engine, id, runAs, { trigger: "manual", taskRunId: null }));
    return resultOf(outcome);
  }

  /** The cached result set of the last successful run; 404 before there is one. */
  async results(p: Principal | null, id: number): Promise<{ hunt: HuntRow; result: CachedResult }> {
    authorize(p, "hunts:read");
    const hunt = this.visible(p, await findHunt(this.ctx.db.pool, id));
    const result = await cachedResult(this.ctx.db.pool, id);
    if (!result) throw new AppError("not_found", "No results available yet: run the hunt first");
    return { hunt, result };
  }

  /** The cached result with one page of its hits and the number kept (GraphQL's paged huntResults). */
  async resultPage(p: Principal | null, id: number, req: PageRequest): Promise<{ hunt: HuntRow; result: CachedResult & { hitCount: number } }> {
    authorize(p, "hunts:read");
    const hunt = this.visible(p, await findHunt(this.ctx.db.pool, id));
    const result = await cachedResultPage(this.ctx.db.pool, id, offsetOf(req), req.size);
    if (!result) throw new AppError("not_found", "No results available yet: run the hunt first");
    return { hunt, result };
  }

  /** Runs newest first, failed ones with their reason. */
  async history(p: Principal | null, id: number, skip: number, limit: number): Promise<HuntRunRow[]> {
    authorize(p, "hunts:read");
    this.visible(p, await findHunt(this.ctx.db.pool, id));
    return listRuns(this.ctx.db.pool, id, skip, limit);
  }

  /** The same history as a page with its total (GraphQL's paging). */
  async historyPage(p: Principal | null, id: number, req: PageRequest): Promise<Page<HuntRunRow>> {
    const items = await this.history(p, id, offsetOf(req), req.size);
    return pageOf(items, await countRuns(this.ctx.db.pool, id), req);
  }

  /** Deletes the history and the cached results; the hunt stays and its next run is a first run. */
  async clearHistory(p: Principal | null, id: number): Promise<void> {
    authorize(p, "hunts:delete");
    await withTransaction(this.ctx.db.pool, async (client) => {
      this.visible(p, await findHunt(client, id, true));
      await clearHistory(client, id);
    });
    await this.audit.record(p, { action: "hunt.history_cleared", resourceType: "hunt", resourceId: id });
  }

  // ---- the same reads as Prisma records, loaded with a GraphQL selection's query ----

  /** Your hunts (administrators: with `all` everyone's, with `userId` one user's), newest first, as a page. */
  async page(p: Principal | null, given: HuntListQuery, query: HuntSelection = {}): Promise<Page<Hunt>> {
    authorize(p, "hunts:read");
    requireUser(p);
    const q = parseInput(huntListContract, given);
    if ((q.all || q.userId !== undefined) && !canListOthersHunts(p)) throw errors.forbidden("Only administrators list other users' hunts");
    const userId = q.userId ?? (q.all ? null : p.userId);
    const where: Prisma.HuntWhereInput = {
      AND: [managedHuntWhere(p), userId === null ? {} : { userId }, q.filter ? { name: { contains: likeLiteral(q.filter), mode: "insensitive" } } : {}],
    };
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.hunt.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offsetOf(q), take: q.size }),
      prisma.hunt.count({ where }),
    ]);
    return pageOf(items, total, q);
  }

  /** One hunt the caller manages (canManageHunt's rule as the where); not found otherwise. */
  async record(p: Principal | null, id: number, query: HuntSelection = {}): Promise<Hunt> {
    authorize(p, "hunts:read");
    const h = await this.ctx.db.prisma.hunt.findFirst({ ...query, where: { id, ...managedHuntWhere(p) } });
    if (!h) throw errors.notFound("Hunt");
    return h;
  }

  private visible(p: Principal, hunt: HuntRow | null): HuntRow {
    if (!hunt || !canManageHunt(p, hunt)) throw errors.notFound("Hunt");
    return hunt;
  }

  /** The owner's own credential when they act; their current role when an administrator acts for them. */
  private async ownerAccess(p: Principal, hunt: HuntRow): Promise<Principal> {
    if (hunt.userId === p.userId) return p;
    const owner = await runAsPrincipal(this.ctx.db.pool, hunt.userId, ["*"]);
    if (!owner) throw errors.conflict("The hunt's owner is disabled; their hunts do not run");
    return owner;
  }
}

/** The stored definition from a checked input over the current hunt (null when creating). */
/**
 * The schedule a write asks for: a frequency or cron fields, null to remove it, undefined to leave it.
 * A frequency and a cron line together are refused: which one was meant is not known.
 */
function scheduleOf(input: Pick<HuntPatch, "schedule" | "cron">): HuntFrequency | HuntCron | null | undefined {
  if (input.schedule && input.cron) {
    throw new InputError([{ loc: ["cron"], msg: "Give a schedule (hourly, daily, weekly) or a cron line, not both", type: "value_error", input: input.cron }]);
  }
  if (input.cron) return cronFieldsOf(input.cron)!;
  if (input.schedule !== undefined) return input.schedule;
  return input.cron === null ? null : undefined;
}

function definition(input: HuntPatch, current: HuntRow | null): HuntFields {
  const huntType = input.huntType === undefined ? (current?.huntType ?? "search") : normaliseHuntType(input.huntType);
  if (!huntType) throw errors.invalidInput(["huntType"], "must be search, cpe, rules or fw-attack-pattern", input.huntType);
  const name = input.name ?? current?.name;
  if (!name) throw errors.invalidInput(["name"], "Field required");
  const query = input.query ?? current?.query;
  if (query === undefined || query.trim() === "") throw errors.invalidInput(["query"], "must not be blank", query);
  const indexTarget = indexTargetFor(huntType, input.indexTarget, current?.indexTarget);
  if (query !== current?.query || huntType !== current?.huntType) validateQuery(huntType, query);
  return {
    name,
    description: input.description === undefined ? (current?.description ?? null) : input.description,
    query,
    huntType,
    indexTarget,
    status: input.status ?? current?.status ?? "active",
  };
}

function resultOf(outcome: RunOutcome): HuntRunResult {
  switch (outcome.status) {
    case "succeeded":
      return { hunt: outcome.hunt, total: outcome.total, hits: outcome.hits, run: outcome.run };
    case "failed":
      throw outcome.error;
    case "busy":
      throw errors.conflict("A run of this hunt is in progress; try again when it has finished");
    case "discarded":
      throw errors.conflict(`The run was not recorded: ${outcome.reason}`);
  }
}
