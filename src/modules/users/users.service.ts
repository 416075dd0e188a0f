import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, type Principal } from "../../auth/principal.ts";
import { hashPassword, verifyPassword } from "../../auth/passwords.ts";
import { LoginThrottle } from "../../auth/login-throttle.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { ADMIN_ROLE_ID, canAssignRole, diff, isUniqueViolation } from "../roles/index.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { ownPasswordContract, userCreateContract, userPatchContract, type CreateUserInput, type OwnPasswordChange, type UpdateUserInput } from "./users.contracts.ts";
import { canChangeOwnRole, canManageUsersOf, usersVisibleTo } from "./users.policy.ts";

const withRelations = { role: true, organisation: true } as const;
const wholeRecord = { include: withRelations } as const;
export type UserRecord = Prisma.UserGetPayload<typeof wholeRecord>;

/**
 * What a caller asks a user row to hold: GraphQL passes @pothos/plugin-prisma's query (the columns
 * and relations its selection needs, never the password hash: the type does not expose it); REST
 * takes the default, the row with its role and organisation. Who may read the row is the service's.
 */
export type UserQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };
export type UserRow<Q extends UserQuery> = Prisma.UserGetPayload<Q>;


/**
 * Users. Administrators (scope *) manage everyone; other holders of the users scopes (org admins)
 * manage users of their own organisation only (others are 404), never move one to another
 * organisation, never hand out a role whose scopes exceed their own, and never change their own role.
 */
export class UsersService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {
    this.throttle = new LoginThrottle(ctx.db.pool, audit);
  }

  async me<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, query?: Q): Promise<UserRow<Q>> {
    authorize(p, "users:me");
    requireUser(p);
    const user = await this.ctx.db.prisma.user.findUnique({ ...(query ?? wholeRecord), where: { id: p.userId } });
    if (!user) throw errors.unauthenticated();
    return user as UserRow<Q>;
  }

  async list<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, page: { skip: number; limit: number }, query?: Q): Promise<UserRow<Q>[]> {
    authorize(p, "users:read");
    const rows = await this.ctx.db.prisma.user.findMany({
      ...(query ?? wholeRecord),
      where: this.visibleTo(p),
      orderBy: { id: "asc" },
      skip: page.skip,
      take: page.limit,
    });
    return rows as UserRow<Q>[];
  }

  /** The same list as a page with its total (GraphQL's paging). */
  async listPage<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, req: PageRequest, query?: Q): Promise<Page<UserRow<Q>>> {
    const items = await this.list(p, { skip: offsetOf(req), limit: req.size }, query);
    return pageOf(items, await this.ctx.db.prisma.user.count({ where: this.visibleTo(p!) }), req);
  }

  async get<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, id: number, query?: Q): Promise<UserRow<Q>> {
    authorize(p, "users:read");
    const user = await this.ctx.db.prisma.user.findFirst({ ...(query ?? wholeRecord), where: { id, ...this.visibleTo(p) } });
    if (!user) throw errors.notFound("User");
    return user as UserRow<Q>;
  }

  async create<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, given: CreateUserInput, query?: Q): Promise<UserRow<Q>> {
    authorize(p, "users:create");
    const input = parseInput(userCreateContract, given);
    const email = input.email.toLowerCase();
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const { prisma } = this.ctx.db;
    return prisma.$transaction(async (tx) => {
      await this.checkAssignment(p, tx, input.orgId, input.roleId);
      if (await tx.user.findUnique({ where: { email } })) throw errors.badRequest("Email already registered");
      const user = await tx.user.create({
        data: { email, passwordHash, orgId: input.orgId, roleId: input.roleId, disabled: input.disabled ?? false },
        include: withRelations,
      });
      await this.audit.record(p, {
        action: "user.created",
        resourceType: "user",
        resourceId: user.id,
        metadata: { email, org_id: input.orgId, role_id: input.roleId },
      }, tx);
      return user;
    }).catch(emailTaken).then((user) => this.reread(user, query));
  }

  async update<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, id: number, given: UpdateUserInput, query?: Q): Promise<UserRow<Q>> {
    authorize(p, "users:update");
    const input = parseInput(userPatchContract, given);
    const passwordHash = input.password ? await hashPassword(input.password) : undefined;
    const { prisma } = this.ctx.db;
    return this.ctx.authCache.afterChange(`users:${id}`, () => prisma.$transaction(async (tx) => {
      const before = await this.findVisible(p, id, tx);
      if (!canAssignRole(p, before.role.scopes)) {
        // Editing (or demoting) someone who holds more power than you would be a privilege escalation path.
        throw errors.forbidden("You cannot modify a user whose role exceeds your own scopes");
      }
      if (input.roleId !== undefined && input.roleId !== before.roleId && id === p.userId && !canChangeOwnRole(p)) {
        throw errors.forbidden("You cannot change your own role");
      }
      if (input.orgId !== undefined || input.roleId !== undefined) {
        await this.checkAssignment(p, tx, input.orgId ?? before.orgId, input.roleId ?? before.roleId);
      }
      const email = input.email?.toLowerCase();
      if (email && email !== before.email && (await tx.user.findUnique({ where: { email } }))) {
        throw errors.badRequest("Email already registered");
      }
      const losesAdmin =
        before.roleId === ADMIN_ROLE_ID && !before.disabled &&
        ((input.roleId !== undefined && input.roleId !== ADMIN_ROLE_ID) || input.disabled === true);
      if (losesAdmin) await this.keepOneAdmin(tx, id);
      const user = await tx.user.update({
        where: { id },
        data: { email, orgId: input.orgId, roleId: input.roleId, disabled: input.disabled, passwordHash },
        include: withRelations,
      });
      if (input.disabled === true || passwordHash || user.roleId !== before.roleId || user.orgId !== before.orgId) {
        // Sessions end when an account is disabled, its password is reset or its role or organisation
        // changes. Its access tokens end with them: a trigger moves the user's token generation.
        await tx.refreshToken.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: new Date() } });
      }
      // Audit metadata uses the wire names (as user.created does): org_id, role_id.
      const changes = Object.fromEntries(
        Object.entries(diff(before, user, ["email", "orgId", "roleId", "disabled"])).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
      );
      if (passwordHash) changes.password = { before: "[set]", after: "[changed]" };
      await this.audit.record(p, { action: "user.updated", resourceType: "user", resourceId: id, metadata: { changes } }, tx);
      return user;
    }).catch(emailTaken)).then((user) => this.reread(user, query));
  }

  /**
   * Self-service: a user changes their own password, proving they know the current one. That proof
   * is throttled like a login, so a stolen access token cannot be used to guess the password. The
   * change ends every session, this one included.
   */
  async changeOwnPassword<Q extends UserQuery = typeof wholeRecord>(p: Principal | null, given: OwnPasswordChange, query?: Q): Promise<UserRow<Q>> {
    authorize(p, "users:me");
    requireUser(p);
    if (p.actorType !== "user") throw errors.forbidden("Passwords can only be changed with an interactive login");
    const { currentPassword, password: newPassword } = parseInput(ownPasswordContract, given);
    const { prisma } = this.ctx.db;
    const user = await prisma.user.findUnique({ where: { id: p.userId } });
    if (!user) throw errors.unauthenticated();
    const attempt = await this.throttle.begin(p, user.email, "password_change");
    if (!(await verifyPassword(user.passwordHash, currentPassword))) {
      await attempt.failed();
      throw errors.invalidInput(["currentPassword"], "Current password is incorrect");
    }
    await attempt.succeeded(user.id);
    const passwordHash = await hashPassword(newPassword);
    return this.ctx.authCache.afterChange(`users:${p.userId}`, () => prisma.$transaction(async (tx) => {
      const updated = await tx.user.update({ where: { id: p.userId }, data: { passwordHash }, include: withRelations });
      await tx.refreshToken.updateMany({ where: { userId: p.userId, revokedAt: null }, data: { revokedAt: new Date() } });
      await this.audit.record(p, { action: "user.password_changed", resourceType: "user", resourceId: p.userId }, tx);
      return updated;
    })).then((user) => this.reread(user, query));
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "users:delete");
    if (p.userId === id) throw errors.conflict("You cannot delete your own account");
    const { prisma } = this.ctx.db;
    await this.ctx.authCache.afterChange(`users:${id}`, () => prisma.$transaction(async (tx) => {
      const user = await this.findVisible(p, id, tx);
      if (!canAssignRole(p, user.role.scopes)) throw errors.forbidden("You cannot delete a user whose role exceeds your own scopes");
      if (user.roleId === ADMIN_ROLE_ID && !user.disabled) await this.keepOneAdmin(tx, id);
      await tx.user.delete({ where: { id } });
      await this.audit.record(p, { action: "user.deleted", resourceType: "user", resourceId: id, metadata: { email: user.email } }, tx);
    }));
  }

  private visibleTo(p: Principal): Prisma.UserWhereInput {
    return usersVisibleTo(p);
  }

  /** A row just written, as the caller's query asks for it (the written row is the whole record). */
  private async reread<Q extends UserQuery>(user: UserRecord, query: Q | undefined): Promise<UserRow<Q>> {
    if (!query) return user as unknown as UserRow<Q>;
    return (await this.ctx.db.prisma.user.findUniqueOrThrow({ ...query, where: { id: user.id } })) as UserRow<Q>;
  }

  private async findVisible(p: Principal, id: number, tx: Prisma.TransactionClient = this.ctx.db.prisma): Promise<UserRecord> {
    const user = await tx.user.findFirst({ where: { id, ...this.visibleTo(p) }, include: withRelations });
    if (!user) throw errors.notFound("User");
    return user;
  }

  private async checkAssignment(p: Principal, tx: Prisma.TransactionClient, orgId: number, roleId: number): Promise<void> {
    const [org, role] = await Promise.all([
      tx.organisation.findUnique({ where: { id: orgId } }),
      tx.role.findUnique({ where: { id: roleId } }),
    ]);
    if (!org) throw errors.invalidInput(["orgId"], "Organisation does not exist", orgId);
    if (!role) throw errors.invalidInput(["roleId"], "Role does not exist", roleId);
    if (!canManageUsersOf(p, orgId)) throw errors.forbidden("You can only manage users of your own organisation");
    if (!canAssignRole(p, role.scopes)) throw errors.forbidden("You cannot assign a role whose scopes exceed your own");
  }

  /** Refuses a change that would leave no enabled administrator. */
  private async keepOneAdmin(tx: Prisma.TransactionClient, changingUserId: number): Promise<void> {
    // Serialise these checks: two concurrent changes to two administrators must not both see the other.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(727003)`;
    const others = await tx.user.count({ where: { roleId: ADMIN_ROLE_ID, disabled: false, id: { not: changingUserId } } });
    if (others === 0) throw errors.conflict("This would leave no enabled administrator");
  }
}

/** Two concurrent requests for one e-mail: the unique index decides, and the loser gets the same 400. */
function emailTaken(err: unknown): never {
  if (isUniqueViolation(err)) throw errors.badRequest("Email already registered");
  throw err;
}
