import type { z } from "zod";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import type { Warninglist } from "../../generated/prisma/client.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { isCompositeType, splitComposite } from "../attributes/index.ts";
import { entryProblem, type Warning } from "./matchers.ts";
import { queueHitRecompute } from "./recompute-hits.ts";
import { entryPage, replaceEntries, setEnabled, upsertList } from "./warninglist-store.ts";
import { readWarninglistSource } from "./warninglist-source.ts";
import { warninglistCheckContract, warninglistEntriesContract, warninglistFlagsContract, warninglistListContract } from "./warninglists.contracts.ts";

/** Serialises imports and enable/disable, across processes. */
const WARNINGLIST_LOCK = 727012;
/** Refused entries named in an import's answer (all are counted). */
const REFUSED_SHOWN = 50;

export type WarninglistQuery = { select?: Prisma.WarninglistSelect };
export type WarninglistPage = Page<Warninglist> & { query: { enabled: boolean | null; type: string | null; name: string | null } };
export type WarninglistWithEntries = Warninglist & { entries: string[]; entriesPage: { page: number; size: number } };

export interface WarninglistCheckResult {
  value: string;
  warnings: readonly Warning[];
}

export interface WarninglistUpdateResult {
  lists: number;
  lists_created: number;
  lists_changed: number;
  entries: number;
  entries_refused: number;
  refused: { list: string; entry: string; reason: string }[];
  took_ms: number;
}

/**
 * Warninglists (MISP's lists of known-good or noisy values): import from WARNINGLISTS_SOURCE,
 * browse, enable and disable. They are shared by every organisation: reading needs
 * `warninglists:read`, importing and enabling `warninglists:update` (the administrator's).
 * Enabling or disabling a list, or an import changing an enabled one, queues the recomputation
 * of every attribute's hits (src/modules/warninglists/recompute-hits.ts).
 */
export class WarninglistsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /**
   * Imports every list of WARNINGLISTS_SOURCE in one transaction, read and written one list at a
   * time (a million-entry list is one file in memory, written in batches). Lists are upserted by
   * name (enabled is kept); entries unusable for the list's type are refused and reported; lists
   * no longer published are kept.
   */
  async update(p: Principal | null): Promise<WarninglistUpdateResult> {
    authorize(p, "warninglists:update");
    const started = performance.now();
    const result: WarninglistUpdateResult = { lists: 0, lists_created: 0, lists_changed: 0, entries: 0, entries_refused: 0, refused: [], took_ms: 0 };
    // Written with pg (batched entries, array rows); the audit entry follows the commit.
    const kind = await withTransaction(this.ctx.db.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [WARNINGLIST_LOCK]);
      let enabledChanged = false;
      const kind = await readWarninglistSource(this.ctx.config.WARNINGLISTS_SOURCE, async (file) => {
        const accepted: string[] = [];
        for (const entry of file.list) {
          const problem = entryProblem(file.type, entry);
          if (problem === null) accepted.push(entry);
          else {
            result.entries_refused++;
            if (result.refused.length < REFUSED_SHOWN) result.refused.push({ list: file.name, entry: entry.slice(0, 200), reason: problem });
          }
        }
        const row = await upsertList(client, { name: file.name, version: file.version, description: file.description, type: file.type, matchingAttributes: file.matching_attributes }, accepted.length);
        if (row.rewrite) {
          await replaceEntries(client, row.id, accepted);
          result.lists_changed++;
          if (row.enabled) enabledChanged = true;
        }
        result.lists++;
        if (row.inserted) result.lists_created++;
        result.entries += accepted.length;
      });
      if (enabledChanged) await queueHitRecompute(client);
      return kind;
    });
    // This process's next write must not wait for its own notification.
    this.ctx.warninglists.invalidate();
    const { refused, took_ms: _, ...counts } = result;
    await this.audit.record(p, { action: "warninglist.updated", resourceType: "warninglist", metadata: { source: kind, ...counts, refused: refused.slice(0, 10) } });
    result.took_ms = Math.round(performance.now() - started);
    return result;
  }

  /** `GET /warninglists/`: a page ordered by name, with the filters asked for. */
  async list(p: Principal | null, given: z.input<typeof warninglistListContract>, query: WarninglistQuery = {}): Promise<WarninglistPage> {
    authorize(p, "warninglists:read");
    const q = parseInput(warninglistListContract, given);
    const name = q.name === undefined || q.name === "" ? null : q.name;
    const where: Prisma.WarninglistWhereInput = {
      ...(name === null ? {} : { name: { contains: likeLiteral(name), mode: "insensitive" } }),
      ...(q.type === undefined ? {} : { type: q.type }),
      ...(q.enabled === undefined ? {} : { enabled: q.enabled }),
    };
    const prisma = this.ctx.db.prisma;
    const [items, total] = await Promise.all([
      prisma.warninglist.findMany({ ...query, where, orderBy: [{ name: "asc" }, { id: "asc" }], take: q.size, skip: offsetOf(q) }),
      prisma.warninglist.count({ where }),
    ]);
    return { ...pageOf(items, total, q), query: { enabled: q.enabled ?? null, type: q.type ?? null, name } };
  }

  /** One list with a page of its entries (in the file's order). */
  async get(p: Principal | null, id: number, given: z.input<typeof warninglistEntriesContract> = {}): Promise<WarninglistWithEntries> {
    authorize(p, "warninglists:read");
    const q = parseInput(warninglistEntriesContract, given);
    const list = await this.ctx.db.prisma.warninglist.findUnique({ where: { id } });
    if (!list) throw errors.notFound("Warninglist");
    const entries = await entryPage(this.ctx.db.pool, id, (q.page - 1) * q.size, q.size);
    return { ...list, entries, entriesPage: { page: q.page, size: q.size } };
  }

  /** One list, read with a GraphQL selection. */
  async getSelected(p: Principal | null, id: number, query: WarninglistQuery = {}): Promise<Warninglist> {
    authorize(p, "warninglists:read");
    const list = await this.ctx.db.prisma.warninglist.findUnique({ ...query, where: { id } });
    if (!list) throw errors.notFound("Warninglist");
    return list;
  }

  /** A page of a list's entries (GraphQL Warninglist.entries). */
  async entries(p: Principal | null, id: number, given: z.input<typeof warninglistEntriesContract>): Promise<string[]> {
    authorize(p, "warninglists:read");
    const q = parseInput(warninglistEntriesContract, given);
    return entryPage(this.ctx.db.pool, id, (q.page - 1) * q.size, q.size);
  }

  /**
   * Which enabled lists each value is on, with the matcher attribute writes use (MISP's
   * checkValue). With a type, only the lists applying to it, and a composite value is split as
   * its attribute would be; without, every enabled list and the value whole.
   */
  async check(p: Principal | null, given: z.input<typeof warninglistCheckContract>): Promise<WarninglistCheckResult[]> {
    authorize(p, "warninglists:read");
    const q = parseInput(warninglistCheckContract, given);
    const matcher = await this.ctx.warninglists.matcher();
    const composite = q.type !== undefined && isCompositeType(q.type);
    return q.values.map((value) => {
      const parts = composite ? splitComposite(q.type!, value) : null;
      const warnings = parts ? matcher.match(q.type!, parts[0].value, parts[1].value) : matcher.match(q.type ?? null, value, null);
      return { value, warnings };
    });
  }

  /**
   * `PATCH /warninglists/{id}`: enables or disables the list. A change queues, in the same
   * transaction, the recomputation of every attribute's hits (and their re-indexing).
   */
  async setFlags(p: Principal | null, id: number, given: z.input<typeof warninglistFlagsContract>): Promise<WarninglistWithEntries> {
    authorize(p, "warninglists:update");
    const flags = parseInput(warninglistFlagsContract, given);
    const changed = await withTransaction(this.ctx.db.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [WARNINGLIST_LOCK]);
      const row = await setEnabled(client, id, flags.enabled);
      if (!row) throw errors.notFound("Warninglist");
      if (row.before === flags.enabled) return null;
      await queueHitRecompute(client);
      return row;
    });
    if (changed) {
      this.ctx.warninglists.invalidate();
      await this.audit.record(p, { action: flags.enabled ? "warninglist.enabled" : "warninglist.disabled", resourceType: "warninglist", resourceId: id, metadata: { name: changed.name } });
    }
    return this.get(p, id, { size: 0 });
  }
}
