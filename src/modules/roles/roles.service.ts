import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, type Principal } from "../../auth/principal.ts";
import { ADMIN_SCOPE, SCOPE_CATALOGUE, isKnownScope, grantedByAll } from "../../auth/scopes.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import type { Prisma, Role } from "../../generated/prisma/client.ts";
import { roleCreateContract, rolePatchContract, type RoleInput, type RolePatch } from "./roles.contracts.ts";

export const ADMIN_ROLE_ID = 1;

/**
 * What a caller asks a role row to hold: GraphQL passes @pothos/plugin-prisma's query (the counts
 * its selection needs); REST takes the row alone.
 */
export type RoleQuery = { include?: Prisma.RoleInclude; select?: Prisma.RoleSelect };
export type RoleRow<Q extends RoleQuery> = Prisma.RoleGetPayload<Q>;

export class RolesService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  scopeCatalogue(): Readonly<Record<string, string>> {
    return SCOPE_CATALOGUE;
  }

  async list<Q extends RoleQuery = object>(p: Principal | null, page: { skip: number; limit: number }, query?: Q): Promise<RoleRow<Q>[]> {
    authorize(p, "roles:read");
    const rows = await this.ctx.db.prisma.role.findMany({ ...query, orderBy: { id: "asc" }, skip: page.skip, take: page.limit });
    return rows as RoleRow<Q>[];
  }

  /** The same list as a page with its total (GraphQL's paging). */
  async listPage<Q extends RoleQuery = object>(p: Principal | null, req: PageRequest, query?: Q): Promise<Page<RoleRow<Q>>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size }, query);
    return pageOf(items, await this.ctx.db.prisma.role.count(), req);
  }

  async get<Q extends RoleQuery = object>(p: Principal | null, id: number, query?: Q): Promise<RoleRow<Q>> {
    authorize(p, "roles:read");
    const role = await this.ctx.db.prisma.role.findUnique({ ...query, where: { id } });
    if (!role) throw errors.notFound("Role");
    return role as RoleRow<Q>;
  }

  async create<Q extends RoleQuery = object>(p: Principal | null, given: RoleInput, query?: Q): Promise<RoleRow<Q>> {
    authorize(p, "roles:create");
    const input = parseInput(roleCreateContract, given);
    const scopes = this.checkScopes(p, input.scopes);
    const { prisma } = this.ctx.db;
    return prisma.$transaction(async (tx) => {
      if (await tx.role.findUnique({ where: { name: input.name } })) throw errors.conflict("A role with this name already exists");
      if (input.defaultRole) await tx.role.updateMany({ data: { defaultRole: false } });
      const role = await tx.role.create({ data: { name: input.name, scopes, defaultRole: input.defaultRole ?? false } });
      await this.audit.record(p, { action: "role.created", resourceType: "role", resourceId: role.id, metadata: { name: role.name, scopes } }, tx);
      return role;
    }).catch(nameTaken).then((role) => this.reread(role, query));
  }

  async update<Q extends RoleQuery = object>(p: Principal | null, id: number, given: RolePatch, query?: Q): Promise<RoleRow<Q>> {
    authorize(p, "roles:update");
    const input = parseInput(rolePatchContract, given);
    const scopes = input.scopes === undefined ? undefined : this.checkScopes(p, input.scopes);
    const { prisma } = this.ctx.db;
    return this.ctx.authCache.afterChange(`roles:${id}`, () => prisma.$transaction(async (tx) => {
      const before = await tx.role.findUnique({ where: { id } });
      if (!before) throw errors.notFound("Role");
      if (!canAssignRole(p, before.scopes)) throw errors.forbidden("You cannot modify a role whose scopes exceed your own");
      if (id === ADMIN_ROLE_ID && scopes !== undefined && !scopes.includes(ADMIN_SCOPE)) {
        throw errors.conflict("The administrator role must keep the * scope");
      }
      if (input.name !== undefined && input.name !== before.name && (await tx.role.findUnique({ where: { name: input.name } }))) {
        throw errors.conflict("A role with this name already exists");
      }
      if (input.defaultRole) await tx.role.updateMany({ where: { id: { not: id } }, data: { defaultRole: false } });
      const role = await tx.role.update({
        where: { id },
        data: { name: input.name, scopes, defaultRole: input.defaultRole },
      });
      await this.audit.record(p, {
        action: "role.updated",
        resourceType: "role",
        resourceId: id,
        metadata: { changes: diff(before, role, ["name", "scopes", "defaultRole"]) },
      }, tx);
      return role;
    }).catch(nameTaken)).then((role) => this.reread(role, query));
  }

  /** A row just written, as the caller's query asks for it (counts); without one, as written. */
  private async reread<Q extends RoleQuery>(role: Role, query: Q | undefined): Promise<RoleRow<Q>> {
    if (!query?.include && !query?.select) return role as RoleRow<Q>;
    return (await this.ctx.db.prisma.role.findUniqueOrThrow({ ...query, where: { id: role.id } })) as RoleRow<Q>;
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "roles:delete");
    if (id === ADMIN_ROLE_ID) throw errors.conflict("The administrator role cannot be deleted");
    const { prisma } = this.ctx.db;
    await prisma.$transaction(async (tx) => {
      const role = await tx.role.findUnique({ where: { id }, include: { _count: { select: { users: true } } } });
      if (!role) throw errors.notFound("Role");
      if (!canAssignRole(p, role.scopes)) throw errors.forbidden("You cannot delete a role whose scopes exceed your own");
      if (role._count.users > 0) throw errors.conflict(`The role is assigned to ${role._count.users} user(s)`);
      await tx.role.delete({ where: { id } });
      await this.audit.record(p, { action: "role.deleted", resourceType: "role", resourceId: id, metadata: { name: role.name } }, tx);
    });
  }

  /** Scopes must exist, and nobody can grant a role more than they hold themselves. */
  private checkScopes(p: Principal, requested: string[]): string[] {
    const scopes = [...new Set(requested)];
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (unknown.length) throw errors.invalidScope(`Unknown scopes: ${unknown.slice(0, 20).join(", ")}`);
    const beyond = scopes.filter((s) => !hasScope(p, s));
    if (beyond.length) throw errors.forbidden(`Scopes exceed your own: ${beyond.join(", ")}`);
    return scopes;
  }
}

/** Can `p` hand out a role with these scopes (to a user it creates or updates)? */
export function canAssignRole(p: Principal, roleScopes: readonly string[]): boolean {
  return roleScopes.every((s) => grantedByAll(p.grantSets, s));
}

function nameTaken(err: unknown): never {
  if (isUniqueViolation(err)) throw errors.conflict("A role with this name already exists");
  throw err;
}

/** A unique index refused a write that a concurrent request made first (Prisma P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

export function diff<T extends object>(before: T, after: T, keys: (keyof T)[]): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const k of keys) {
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) out[String(k)] = { before: before[k], after: after[k] };
  }
  return out;
}
