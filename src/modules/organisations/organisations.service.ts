import crypto from "node:crypto";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { diff, isUniqueViolation } from "../roles/index.ts";
import type { Organisation, Prisma } from "../../generated/prisma/client.ts";
import { organisationCreateContract, organisationPatchContract, type OrganisationInput, type OrganisationPatch } from "./organisations.contracts.ts";

/**
 * What a caller asks an organisation row to hold: GraphQL passes @pothos/plugin-prisma's query (the
 * relations and counts its selection needs); REST takes the row alone.
 */
export type OrganisationQuery = { include?: Prisma.OrganisationInclude; select?: Prisma.OrganisationSelect };
export type OrganisationRow<Q extends OrganisationQuery> = Prisma.OrganisationGetPayload<Q>;

/** Organisations are readable by anyone holding organisations:read (MISP shares org names freely). */
export class OrganisationsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  async list<Q extends OrganisationQuery = object>(p: Principal | null, page: { skip: number; limit: number }, query?: Q): Promise<OrganisationRow<Q>[]> {
    authorize(p, "organisations:read");
    const rows = await this.ctx.db.prisma.organisation.findMany({ ...query, orderBy: { id: "asc" }, skip: page.skip, take: page.limit });
    return rows as OrganisationRow<Q>[];
  }

  /** The same list as a page with its total (GraphQL's paging). */
  async listPage<Q extends OrganisationQuery = object>(p: Principal | null, req: PageRequest, query?: Q): Promise<Page<OrganisationRow<Q>>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size }, query);
    return pageOf(items, await this.ctx.db.prisma.organisation.count(), req);
  }

  /** By numeric id or uuid, as the peer accepts both. */
  async get<Q extends OrganisationQuery = object>(p: Principal | null, idOrUuid: number | string, query?: Q): Promise<OrganisationRow<Q>> {
    authorize(p, "organisations:read");
    const org = await this.ctx.db.prisma.organisation.findUnique({
      ...query,
      where: typeof idOrUuid === "number" ? { id: idOrUuid } : { uuid: idOrUuid },
    });
    if (!org) throw errors.notFound("Organisation");
    return org as OrganisationRow<Q>;
  }

  async create<Q extends OrganisationQuery = object>(p: Principal | null, given: OrganisationInput, query?: Q): Promise<OrganisationRow<Q>> {
    authorize(p, "organisations:create");
    const input = parseInput(organisationCreateContract, given);
    const { prisma } = this.ctx.db;
    return prisma.$transaction(async (tx) => {
      await this.checkUnique(tx, input.name, input.uuid);
      const org = await tx.organisation.create({
        data: { ...input, uuid: input.uuid ?? crypto.randomUUID(), createdBy: p.userId },
      });
      await this.audit.record(p, { action: "organisation.created", resourceType: "organisation", resourceId: org.id, metadata: { name: org.name, uuid: org.uuid } }, tx);
      return org;
    }).catch(alreadyExists).then((org) => this.reread(org, query));
  }

  async update<Q extends OrganisationQuery = object>(p: Principal | null, id: number, given: OrganisationPatch, query?: Q): Promise<OrganisationRow<Q>> {
    authorize(p, "organisations:update");
    const input = parseInput(organisationPatchContract, given);
    const { prisma } = this.ctx.db;
    return prisma.$transaction(async (tx) => {
      const before = await tx.organisation.findUnique({ where: { id } });
      if (!before) throw errors.notFound("Organisation");
      if (input.name !== undefined && input.name !== before.name) await this.checkUnique(tx, input.name);
      const org = await tx.organisation.update({ where: { id }, data: input });
      await this.audit.record(p, {
        action: "organisation.updated",
        resourceType: "organisation",
        resourceId: id,
        metadata: { changes: diff(before, org, ["name", "description", "type", "nationality", "sector", "contacts", "local", "restrictedToDomain", "landingPage"]) },
      }, tx);
      return org;
    }).catch(alreadyExists).then((org) => this.reread(org, query));
  }

  /** A row just written, as the caller's query asks for it (relations, counts); without one, as written. */
  private async reread<Q extends OrganisationQuery>(org: Organisation, query: Q | undefined): Promise<OrganisationRow<Q>> {
    if (!query?.include && !query?.select) return org as OrganisationRow<Q>;
    return (await this.ctx.db.prisma.organisation.findUniqueOrThrow({ ...query, where: { id: org.id } })) as OrganisationRow<Q>;
  }

  /** Refused while users belong to it: deleting an organisation must not silently delete accounts. */
  async delete(p: Principal | null, idOrUuid: number | string): Promise<void> {
    authorize(p, "organisations:delete");
    const { prisma } = this.ctx.db;
    await prisma.$transaction(async (tx) => {
      const org = await tx.organisation.findUnique({
        where: typeof idOrUuid === "number" ? { id: idOrUuid } : { uuid: idOrUuid },
        include: { _count: { select: { users: true } } },
      });
      if (!org) throw errors.notFound("Organisation");
      if (org._count.users > 0) throw errors.conflict(`The organisation still has ${org._count.users} user(s)`);
      await tx.organisation.delete({ where: { id: org.id } });
      await this.audit.record(p, { action: "organisation.deleted", resourceType: "organisation", resourceId: org.id, metadata: { name: org.name, uuid: org.uuid } }, tx);
    });
  }

  private async checkUnique(tx: Prisma.TransactionClient, name: string, uuid?: string): Promise<void> {
    if (await tx.organisation.findUnique({ where: { name } })) throw errors.conflict("An organisation with this name already exists");
    if (uuid && (await tx.organisation.findUnique({ where: { uuid } }))) throw errors.conflict("An organisation with this uuid already exists");
  }
}

/** A concurrent request created the same name or uuid first: the unique index decides, the loser gets 409. */
function alreadyExists(err: unknown): never {
  if (isUniqueViolation(err)) throw errors.conflict("An organisation with this name or uuid already exists");
  throw err;
}
