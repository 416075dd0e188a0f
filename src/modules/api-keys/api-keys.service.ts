import crypto from "node:crypto";
import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, requireUser, type Principal } from "../../auth/principal.ts";
import { isKnownScope } from "../../auth/scopes.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import type { ApiKey, Prisma } from "../../generated/prisma/client.ts";
import { sha256Hex } from "./api-key-auth.ts";
import {
  adminApiKeyListContract,
  apiKeyLockContract,
  apiKeyToggleContract,
  createApiKeyContract,
  type AdminApiKeyList,
  type ApiKeyLock,
  type ApiKeyToggle,
  type CreateApiKeyInput,
} from "./api-keys.contracts.ts";

export type ApiKeyRecord = Omit<ApiKey, "tokenHash">;

/** Lists never carry the hash (nor, obviously, the token). */
const publicColumns = {
  id: true,
  userId: true,
  name: true,
  comment: true,
  scopes: true,
  expiresAt: true,
  disabled: true,
  adminDisabled: true,
  createdAt: true,
  lastUsedAt: true,
} as const;

/**
 * What a caller asks a key row to hold beyond its public columns: GraphQL passes
 * @pothos/plugin-prisma's query. The hash is never selected, whatever the query says.
 */
export type ApiKeyQuery = { include?: Prisma.ApiKeyInclude; select?: Prisma.ApiKeySelect };
const columnsFor = (query: ApiKeyQuery | undefined) => ({ ...publicColumns, ...query?.select, tokenHash: false }) as typeof publicColumns;

/** API keys: the owner's life cycle and the administrator's hold, exactly as spec 3.2 tabulates. */
export class ApiKeysService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  async listOwn(p: Principal | null, query?: ApiKeyQuery): Promise<ApiKeyRecord[]> {
    authorize(p, "api_keys:read");
    requireUser(p);
    return this.ctx.db.prisma.apiKey.findMany({ where: { userId: p.userId }, select: columnsFor(query), orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  }

  /** The caller's own keys, newest first, one page of them with the total. */
  async ownPage(p: Principal | null, req: PageRequest, query?: ApiKeyQuery): Promise<Page<ApiKeyRecord>> {
    authorize(p, "api_keys:read");
    requireUser(p);
    return this.page({ userId: p.userId }, req, query);
  }

  /** Every user's keys (one user's with userId), newest first, one page of them with the total. */
  async adminPage(p: Principal | null, filter: AdminApiKeyList, req: PageRequest, query?: ApiKeyQuery): Promise<Page<ApiKeyRecord>> {
    authorize(p, "api_keys:admin");
    const { userId } = parseInput(adminApiKeyListContract, filter);
    return this.page(userId === undefined ? {} : { userId }, req, query);
  }

  private async page(where: Prisma.ApiKeyWhereInput, req: PageRequest, query?: ApiKeyQuery): Promise<Page<ApiKeyRecord>> {
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.apiKey.findMany({ where, select: columnsFor(query), orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offsetOf(req), take: req.size }),
      prisma.apiKey.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  /**
   * Minting needs an interactive login (spec 4.1), and the key can never hold more than the
   * credential that asks for it: the role, intersected with the scopes the access token was narrowed to.
   */
  async create(p: Principal | null, given: CreateApiKeyInput, query?: ApiKeyQuery): Promise<{ key: ApiKeyRecord; token: string }> {
    authorize(p, "api_keys:create");
    requireUser(p);
    if (p.actorType !== "user") throw errors.forbidden("API keys can only be created with an interactive OAuth2 access token");
    const input = parseInput(createApiKeyContract, given);
    const scopes = [...new Set(input.scopes)];
    if (scopes.length === 0) throw errors.invalidScope("At least one scope is required.");
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (unknown.length) throw errors.invalidScope(`Unknown scopes: ${unknown.slice(0, 20).join(", ")}`);
    const beyond = scopes.filter((s) => !hasScope(p, s));
    if (beyond.length) throw errors.invalidScope(`Scopes exceed your role: ${beyond.join(", ")}`);
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw errors.invalidInput(["expiresAt"], "must be in the future");
    }
    const token = crypto.randomBytes(20).toString("hex");
    const { prisma } = this.ctx.db;
    const key = await prisma.$transaction(async (tx) => {
      const created = await tx.apiKey.create({
        data: { userId: p.userId, name: input.name, comment: input.comment ?? null, scopes, tokenHash: sha256Hex(token), expiresAt: input.expiresAt ?? null },
        select: columnsFor(query),
      });
      await this.audit.record(p, {
        action: "api_key.created",
        resourceType: "api_key",
        resourceId: created.id,
        metadata: { name: created.name, scopes, expires_at: created.expiresAt?.toISOString() ?? null },
      }, tx);
      return created;
    });
    return { key, token };
  }

  /** Owner enable/disable. Refused while an administrator holds the key. */
  async setDisabled(p: Principal | null, id: number, given: ApiKeyToggle, query?: ApiKeyQuery): Promise<ApiKeyRecord> {
    authorize(p, "api_keys:update");
    requireUser(p);
    const { disabled } = parseInput(apiKeyToggleContract, given);
    const { prisma } = this.ctx.db;
    return this.ctx.authCache.afterChange(`api_keys:${id}`, () => prisma.$transaction(async (tx) => {
      const key = await tx.apiKey.findFirst({ where: { id, userId: p.userId }, select: columnsFor(query) });
      if (!key) throw errors.notFound("API key");
      if (key.adminDisabled) throw errors.conflict("This API key has been locked by an administrator and cannot be changed. Contact an administrator.");
      if (key.disabled === disabled) return key;
      const updated = await tx.apiKey.update({ where: { id }, data: { disabled }, select: columnsFor(query) });
      await this.audit.record(p, { action: disabled ? "api_key.disabled" : "api_key.enabled", resourceType: "api_key", resourceId: id, metadata: { name: key.name } }, tx);
      return updated;
    }));
  }

  async deleteOwn(p: Principal | null, id: number): Promise<void> {
    authorize(p, "api_keys:delete");
    requireUser(p);
    const { prisma } = this.ctx.db;
    await this.ctx.authCache.afterChange(`api_keys:${id}`, () => prisma.$transaction(async (tx) => {
      const key = await tx.apiKey.findFirst({ where: { id, userId: p.userId }, select: publicColumns });
      if (!key) throw errors.notFound("API key");
      if (key.adminDisabled) {
        throw errors.conflict("This API key has been locked by an administrator and cannot be deleted. Contact an administrator to unlock or delete it.");
      }
      await tx.apiKey.delete({ where: { id } });
      await this.audit.record(p, { action: "api_key.deleted", resourceType: "api_key", resourceId: id, metadata: { name: key.name } }, tx);
    }));
  }

  async adminList(p: Principal | null, filter: AdminApiKeyList = {}, query?: ApiKeyQuery): Promise<ApiKeyRecord[]> {
    authorize(p, "api_keys:admin");
    const { userId } = parseInput(adminApiKeyListContract, filter);
    return this.ctx.db.prisma.apiKey.findMany({
      where: userId === undefined ? {} : { userId },
      select: columnsFor(query),
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
  }

  /** Administrator hold. Unlocking leaves the owner's own disable flag as it was. */
  async adminSetLocked(p: Principal | null, id: number, given: ApiKeyLock, query?: ApiKeyQuery): Promise<ApiKeyRecord> {
    authorize(p, "api_keys:admin");
    const { locked } = parseInput(apiKeyLockContract, given);
    const { prisma } = this.ctx.db;
    return this.ctx.authCache.afterChange(`api_keys:${id}`, () => prisma.$transaction(async (tx) => {
      const key = await tx.apiKey.findUnique({ where: { id }, select: columnsFor(query) });
      if (!key) throw errors.notFound("API key");
      if (key.adminDisabled === locked) return key;
      const updated = await tx.apiKey.update({ where: { id }, data: { adminDisabled: locked }, select: columnsFor(query) });
      await this.audit.record(p, {
        action: locked ? "api_key.admin_locked" : "api_key.admin_unlocked",
        resourceType: "api_key",
        resourceId: id,
        metadata: { name: key.name, target_user_id: key.userId },
      }, tx);
      return updated;
    }));
  }

  async adminDelete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "api_keys:admin");
    const { prisma } = this.ctx.db;
    await this.ctx.authCache.afterChange(`api_keys:${id}`, () => prisma.$transaction(async (tx) => {
      const key = await tx.apiKey.findUnique({ where: { id }, select: publicColumns });
      if (!key) throw errors.notFound("API key");
      await tx.apiKey.delete({ where: { id } });
      const own = key.userId === p.userId;
      await this.audit.record(p, {
        action: own ? "api_key.deleted" : "api_key.admin_deleted",
        resourceType: "api_key",
        resourceId: id,
        metadata: { name: key.name, target_user_id: key.userId },
      }, tx);
    }));
  }
}

