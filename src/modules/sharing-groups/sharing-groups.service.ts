import crypto from "node:crypto";
import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, isAdmin, type Principal } from "../../auth/principal.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import type { Prisma } from "../../platform/db/index.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditEntry, AuditService } from "../audit/index.ts";
import type { OrgDraft, SharingGroupDraft } from "../events/index.ts";
import { diff, isUniqueViolation } from "../roles/index.ts";
import {
  memberContract,
  sharingGroupCreateContract,
  sharingGroupPatchContract,
  type MemberInput,
  type SharingGroupCreate,
  type SharingGroupPatch,
} from "./sharing-groups.contracts.ts";
import { SharingGroupsRepository } from "./sharing-groups.repository.ts";

/** How an import captures the groups its copies name (SharingGroupsService.captureImported). */
export interface CaptureOptions {
  /** The local id of a copy's organisation, found or created by uuid (the import's rule). */
  organisation(org: OrgDraft): Promise<number>;
  /**
   * A server pull: as MISP's captureSG with a server, a group created or updated from the copy that
   * does not list the puller's organisation gets it as a member (extend off). The remote let the
   * pull read the data, so this organisation was in the exchange (SharingGroup::captureCreatorOrg).
   */
  pulled?: boolean;
}

/** What a caller asks a sharing-group row to hold: GraphQL passes @pothos/plugin-prisma's query. */
export type SharingGroupQuery = { include?: Prisma.SharingGroupInclude; select?: Prisma.SharingGroupSelect };
export type SharingGroupRow<Q extends SharingGroupQuery> = Prisma.SharingGroupGetPayload<Q>;

/** A group with its owner and members, as REST answers it. */
export const WITH_MEMBERS = {
  include: { org: { select: { id: true, uuid: true, name: true } }, members: { include: { org: { select: { id: true, uuid: true, name: true } } }, orderBy: { orgId: "asc" } } },
} as const satisfies SharingGroupQuery;
export type SharingGroupWithMembers = SharingGroupRow<typeof WITH_MEMBERS>;

/**
 * Sharing groups: every change drops this process's cached principals when it commits (membership
 * is part of what a caller reads; other processes learn it from the tables' notification).
 * An organisation sees the groups it owns or belongs to (administrators all);
 * the owner (and administrators) change and delete them; a member allowed to extend may add
 * organisations. Data of distribution 4 names a group, and the distribution rule
 * (src/auth/distribution.ts) lets the group's organisations read it.
 */
export class SharingGroupsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /** The groups the caller may see: an administrator every one, others their organisation's. */
  visibleWhere(p: Principal): Prisma.SharingGroupWhereInput {
    if (isAdmin(p)) return {};
    if (p.orgId === null) return { id: -1 };
    return { OR: [{ orgId: p.orgId }, { members: { some: { orgId: p.orgId } } }] };
  }

  async list<Q extends SharingGroupQuery>(p: Principal | null, page: { skip: number; limit: number }, query: Q): Promise<SharingGroupRow<Q>[]> {
    authorize(p, "sharing_groups:read");
    const rows = await this.ctx.db.prisma.sharingGroup.findMany({ ...query, where: this.visibleWhere(p), orderBy: { id: "asc" }, skip: page.skip, take: page.limit });
    return rows as SharingGroupRow<Q>[];
  }

  /** The same list as a page with its total (GraphQL's paging). */
  async listPage<Q extends SharingGroupQuery>(p: Principal | null, req: PageRequest, query: Q): Promise<Page<SharingGroupRow<Q>>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size }, query);
    return pageOf(items, await this.ctx.db.prisma.sharingGroup.count({ where: this.visibleWhere(p!) }), req);
  }

  /** 404 for a group the caller may not see: its existence is not disclosed. */
  async get<Q extends SharingGroupQuery>(p: Principal | null, id: number, query: Q): Promise<SharingGroupRow<Q>> {
    authorize(p, "sharing_groups:read");
    const group = await this.ctx.db.prisma.sharingGroup.findFirst({ ...query, where: { AND: [this.visibleWhere(p), { id }] } });
    if (!group) throw errors.notFound("Sharing group");
    return group as SharingGroupRow<Q>;
  }

  async create<Q extends SharingGroupQuery>(p: Principal | null, given: SharingGroupCreate, query: Q): Promise<SharingGroupRow<Q>> {
    authorize(p, "sharing_groups:create");
    const input = parseInput(sharingGroupCreateContract, given);
    if (input.orgId !== undefined && input.orgId !== p.orgId && !isAdmin(p)) throw errors.forbidden("Only administrators create sharing groups for another organisation");
    const ownerId = input.orgId ?? p.orgId;
    if (ownerId === null) throw errors.forbidden("Only users of an organisation can own sharing groups");
    const { prisma } = this.ctx.db;
    const created = await this.ctx.authCache
      .afterChange("sharing_groups:new", () => prisma.$transaction(async (tx) => {
        const orgIds = [ownerId, ...(input.members ?? []).map((m) => m.orgId)];
        await requireOrganisations(tx, orgIds, (i) => (i === 0 ? ["orgId"] : ["members", i - 1, "orgId"]));
        const members = new Map<number, boolean>([[ownerId, true]]);
        for (const m of input.members ?? []) if (m.orgId !== ownerId) members.set(m.orgId, m.extend ?? false);
        const group = await tx.sharingGroup.create({
          data: {
            uuid: input.uuid ?? crypto.randomUUID(),
            name: input.name,
            releasability: input.releasability ?? "",
            description: input.description ?? "",
            active: input.active ?? true,
            roaming: input.roaming ?? false,
            orgId: ownerId,
            members: { create: [...members].map(([orgId, extend]) => ({ orgId, extend })) },
          },
        });
        await this.audit.record(p, { action: "sharing_group.created", resourceType: "sharing_group", resourceId: group.id, metadata: { name: group.name, uuid: group.uuid, members: [...members.keys()] } }, tx);
        return group;
      }))
      .catch(alreadyExists);
    return this.get(p, created.id, query);
  }

  async update<Q extends SharingGroupQuery>(p: Principal | null, id: number, given: SharingGroupPatch, query: Q): Promise<SharingGroupRow<Q>> {
    authorize(p, "sharing_groups:update");
    const input = parseInput(sharingGroupPatchContract, given);
    await this.ctx.authCache
      .afterChange(`sharing_groups:${id}`, () => this.ctx.db.prisma.$transaction(async (tx) => {
        const before = await this.owned(tx, p, id);
        const after = await tx.sharingGroup.update({ where: { id }, data: input });
        const changes = diff(before, after, ["name", "releasability", "description", "active", "roaming"]);
        await this.audit.record(p, { action: "sharing_group.updated", resourceType: "sharing_group", resourceId: id, metadata: { changes } }, tx);
      }))
      .catch(alreadyExists);
    return this.get(p, id, query);
  }

  /** Adds (or changes the extend flag of) a member: the owner, an administrator, or a member allowed to extend. */
  async addMember<Q extends SharingGroupQuery>(p: Principal | null, id: number, given: MemberInput, query: Q): Promise<SharingGroupRow<Q>> {
    authorize(p, "sharing_groups:update");
    const input = parseInput(memberContract, given);
    await this.ctx.authCache.afterChange(`sharing_groups:${id}`, () => this.ctx.db.prisma.$transaction(async (tx) => {
      const group = await this.visible(tx, p, id);
      const mine = p.orgId === null ? null : await tx.sharingGroupOrg.findUnique({ where: { sharingGroupId_orgId: { sharingGroupId: id, orgId: p.orgId } } });
      if (!isAdmin(p) && group.orgId !== p.orgId && !mine?.extend) throw errors.forbidden("Only the owner and members allowed to extend add organisations");
      if (input.orgId === group.orgId) throw errors.invalidInput(["orgId"], "is the owner, always a member", input.orgId);
      await requireOrganisations(tx, [input.orgId], () => ["orgId"]);
      const extend = input.extend ?? false;
      await tx.sharingGroupOrg.upsert({
        where: { sharingGroupId_orgId: { sharingGroupId: id, orgId: input.orgId } },
        create: { sharingGroupId: id, orgId: input.orgId, extend },
        update: { extend },
      });
      await this.audit.record(p, { action: "sharing_group.member_added", resourceType: "sharing_group", resourceId: id, metadata: { org_id: input.orgId, extend } }, tx);
    }));
    return this.get(p, id, query);
  }

  /** Removes a member (not the owner): the owner or an administrator. */
  async removeMember(p: Principal | null, id: number, orgId: number): Promise<void> {
    authorize(p, "sharing_groups:update");
    await this.ctx.authCache.afterChange(`sharing_groups:${id}`, () => this.ctx.db.prisma.$transaction(async (tx) => {
      const group = await this.owned(tx, p, id);
      if (orgId === group.orgId) throw errors.conflict("The owner always belongs to its sharing group");
      const removed = await tx.sharingGroupOrg.deleteMany({ where: { sharingGroupId: id, orgId } });
      if (removed.count === 0) throw errors.notFound("Member");
      await this.audit.record(p, { action: "sharing_group.member_removed", resourceType: "sharing_group", resourceId: id, metadata: { org_id: orgId } }, tx);
    }));
  }

  /** Refused (409) while events, objects or attributes name it: their readers would change silently. */
  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "sharing_groups:delete");
    await this.ctx.authCache
      .afterChange(`sharing_groups:${id}`, () => this.ctx.db.prisma.$transaction(async (tx) => {
        const group = await this.owned(tx, p, id);
        await tx.sharingGroup.delete({ where: { id } });
        await this.audit.record(p, { action: "sharing_group.deleted", resourceType: "sharing_group", resourceId: id, metadata: { name: group.name, uuid: group.uuid } }, tx);
      }))
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw errors.conflict("The sharing group is still used by events, objects or attributes");
        throw err;
      });
  }

  /**
   * The local sharing groups of an imported file's SharingGroup blocks, by uuid (the sender's numbers
   * mean nothing here), as MISP's sync captures them (SharingGroup::captureSG), on the import's
   * transaction client `sql` (the groups commit or roll back with the import, audit entries too):
   * - a known group is used when the importer's organisation owns or belongs to it, or the importer
   *   syncs (`events:sync`) or administers; otherwise the data keeps distribution 4 without a group;
   * - a known group is updated from the block when the block is newer (its `modified` later than the
   *   group's last change, or no `modified`) and the importer syncs and the group came by sync (not
   *   `local`), or administers: name, releasability, description, roaming, created and modified as
   *   given, and the member organisations it lists added (or their extend flag changed; none removed,
   *   the owner kept). MISP's code also names the owner, but its test reads a key that is never set:
   *   an owner importing without sync changes nothing, as in MISP;
   * - an unknown group is created only for an importer who syncs, with its owner and members found or
   *   created by `organisation`;
   * - on a pull, see CaptureOptions.pulled.
   * Each group created or changed is audited as the REST changes are (sharing_group.created,
   * .updated, .member_added), with `via: "import"`.
   */
  async captureImported(p: Principal | null, drafts: readonly SharingGroupDraft[], opts: CaptureOptions, sql: Sql): Promise<Map<string, number | null>> {
    authorize(p);
    const byUuid = new Map(drafts.map((d) => [d.uuid, d]));
    const resolved = new Map<string, number | null>();
    if (byUuid.size === 0) return resolved;
    const repo = new SharingGroupsRepository(sql);
    const sync = hasScope(p, "events:sync");
    const admin = isAdmin(p);
    const audit: AuditEntry[] = [];
    const entry = (action: string, id: number, metadata: Record<string, unknown>): AuditEntry => ({ action, resourceType: "sharing_group", resourceId: id, metadata: { ...metadata, via: "import" } });
    const membersOf = async (d: SharingGroupDraft) => {
      const members = new Map<number, boolean>();
      for (const m of d.members) members.set(await opts.organisation(m), m.extend);
      return members;
    };
    // MISP's captureCreatorOrg: the puller's organisation joins a group the copy does not list it in.
    const withPuller = (members: Map<number, boolean>) => {
      if (opts.pulled && p.orgId !== null && !members.has(p.orgId)) members.set(p.orgId, false);
      return members;
    };
    for (const r of await repo.knownByUuid([...byUuid.keys()], p.orgId)) {
      if (!(admin || sync || r.member)) {
        resolved.set(r.uuid, null);
        continue;
      }
      resolved.set(r.uuid, r.id);
      if (!(admin || (sync && !r.local))) continue;
      const d = byUuid.get(r.uuid)!;
      const changes = await repo.updateFromCopy(r.id, d);
      if (changes === null) continue;
      if (Object.keys(changes).length > 0) audit.push(entry("sharing_group.updated", r.id, { changes }));
      const listed = await membersOf(d);
      const puller = opts.pulled && p.orgId !== null && !listed.has(p.orgId) ? p.orgId : null;
      // The copy's members with their flags; the puller's organisation added, its flag kept when it is a member already.
      const changed = [...(await repo.putMembers(r.id, listed, true)), ...(puller === null ? [] : await repo.putMembers(r.id, new Map([[puller, false]]), false))];
      for (const m of changed) audit.push(entry("sharing_group.member_added", r.id, { org_id: m.org_id, extend: m.extend }));
    }
    for (const [uuid, d] of byUuid) {
      if (resolved.has(uuid)) continue;
      if (!sync) {
        resolved.set(uuid, null);
        continue;
      }
      const ownerId = d.owner ? await opts.organisation(d.owner) : p.orgId;
      if (ownerId === null) {
        resolved.set(uuid, null);
        continue;
      }
      const created = await repo.insertFromCopy(d, ownerId);
      const id = created?.id ?? (await repo.idOf(uuid));
      resolved.set(uuid, id);
      if (!created) continue;
      const members = new Map<number, boolean>([[ownerId, true]]);
      for (const [orgId, extend] of await membersOf(d)) if (!members.has(orgId)) members.set(orgId, extend);
      await repo.putMembers(created.id, withPuller(members), false);
      audit.push(entry("sharing_group.created", created.id, { name: created.name, uuid, members: [...members.keys()] }));
    }
    await this.audit.recordAll(p, audit, sql);
    return resolved;
  }

  private async visible(tx: Prisma.TransactionClient, p: Principal, id: number) {
    const group = await tx.sharingGroup.findFirst({ where: { AND: [this.visibleWhere(p), { id }] } });
    if (!group) throw errors.notFound("Sharing group");
    return group;
  }

  /** The group, when the caller may change it: 404 when they may not see it, 403 when they see it but do not own it. */
  private async owned(tx: Prisma.TransactionClient, p: Principal, id: number) {
    const group = await this.visible(tx, p, id);
    if (!isAdmin(p) && group.orgId !== p.orgId) throw errors.forbidden("Only the owning organisation changes a sharing group");
    return group;
  }
}

async function requireOrganisations(tx: Prisma.TransactionClient, ids: number[], locOf: (index: number) => (string | number)[]): Promise<void> {
  const found = new Set((await tx.organisation.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((o) => o.id));
  const missing = ids.findIndex((id) => !found.has(id));
  if (missing >= 0) throw errors.invalidInput(locOf(missing), "names no organisation", ids[missing]);
}

function isForeignKeyViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2003";
}

/** A concurrent request took the same name or uuid first: the unique index decides, the loser gets 409. */
function alreadyExists(err: unknown): never {
  if (isUniqueViolation(err)) throw errors.conflict("A sharing group with this name or uuid already exists");
  throw err;
}
