import crypto from "node:crypto";
import type { AppContext } from "../app-context.ts";
import { errors } from "../platform/errors.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { isKnownScope, grants } from "./scopes.ts";
import { scopesOf, type Principal, type RequestOrigin } from "./principal.ts";
import { LoginThrottle } from "./login-throttle.ts";
import type { AuditService } from "../modules/audit/index.ts";

export interface TokenResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  /** Absent when the REST layer moved it into the refresh cookie. */
  refresh_token?: string;
  scope: string;
}

export interface Whoami {
  actorType: Principal["actorType"];
  userId: number | null;
  email: string | null;
  orgId: number | null;
  roleId: number | null;
  credentialId: number | null;
  scopes: string[];
  expiresAt: Date | null;
}

const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

function anonymous(origin: RequestOrigin): Principal {
  return {
    actorType: "user",
    userId: null,
    email: null,
    orgId: null,
    roleId: null,
    credentialId: null,
    tokenId: null,
    tokenExpiresAt: null,
    grantSets: [[]],
    sharingGroupIds: [],
    ip: origin.ip,
    userAgent: origin.userAgent,
  };
}

/** OAuth2 password and refresh-token grants, logout, and the first administrator. */
export class AuthService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {
    this.throttle = new LoginThrottle(ctx.db.pool, audit);
  }

  /**
   * Throttled (src/auth/login-throttle.ts): while the account or address is locked out the answer
   * is 429 whatever the password. An unknown e-mail costs the same argon2 check and counts the same.
   */
  async passwordGrant(origin: RequestOrigin, email: string, password: string, scope: string | undefined): Promise<TokenResponse> {
    const { prisma } = this.ctx.db;
    const normalized = email.trim().toLowerCase().slice(0, 320);
    const [attempt, user] = await Promise.all([
      this.throttle.begin(anonymous(origin), normalized, "login"),
      prisma.user.findUnique({ where: { email: normalized }, include: { role: true } }),
    ]);
    const ok = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !ok || user.disabled) {
      await attempt.failed();
      throw errors.invalidCredentials();
    }
    // The counter's reset runs beside the token's issue: a success costs no extra round trip in sequence.
    const [, [requested, response]] = await Promise.all([
      attempt.succeeded(user.id),
      (async () => {
        const asked = parseScope(scope);
        const beyond = (asked ?? []).filter((s) => !grants(user.role.scopes, s));
        if (beyond.length) throw errors.invalidScope(`Requested scopes exceed your role: ${beyond.join(", ")}`);
        return [asked, await this.issue(user.id, user.tokenGeneration, asked, crypto.randomUUID())] as const;
      })(),
    ]);
    await this.audit.record(
      { ...anonymous(origin), userId: user.id, email: user.email },
      { action: "user.login", resourceType: "user", resourceId: user.id, metadata: { email: user.email } },
    );
    return { ...response, scope: (requested ?? user.role.scopes).join(" ") };
  }

  /**
   * Rotation: each refresh token works once. Presenting a rotated or revoked token again means it
   * was stolen or replayed, so the whole family (every token descended from that login) is revoked,
   * and with it every access token of the user (the generation moves: other sessions refresh once).
   */
  async refreshGrant(refreshToken: string): Promise<TokenResponse> {
    if (!/^[A-Za-z0-9_-]{20,200}$/.test(refreshToken)) throw errors.invalidGrant();
    const { prisma } = this.ctx.db;
    const row = await prisma.refreshToken.findUnique({ where: { tokenHash: sha256(refreshToken) }, include: { user: { include: { role: true } } } });
    if (!row) throw errors.invalidGrant();
    if (row.rotatedAt || row.revokedAt) {
      await this.revoke(row.userId, row.familyId);
      throw errors.tokenRevoked();
    }
    if (row.expiresAt.getTime() <= Date.now() || row.user.disabled) throw errors.invalidGrant();
    // Compare-and-set: of two concurrent uses of the same token only one wins.
    const claimed = await prisma.refreshToken.updateMany({
      where: { id: row.id, rotatedAt: null, revokedAt: null },
      data: { rotatedAt: new Date() },
    });
    if (claimed.count !== 1) {
      await this.revoke(row.userId, row.familyId);
      throw errors.tokenRevoked();
    }
    const scope = row.scope ? row.scope.split(" ") : null;
    const response = await this.issue(row.userId, row.user.tokenGeneration, scope, row.familyId);
    return { ...response, scope: (scope ?? row.user.role.scopes).join(" ") };
  }

  /** How long the browser keeps the refresh cookie (the refresh token's lifetime), and whether the site is HTTPS. */
  refreshCookiePolicy(): { maxAgeSeconds: number; publicUrl: string | undefined } {
    return { maxAgeSeconds: this.ctx.config.REFRESH_TOKEN_TTL_DAYS * 86_400, publicUrl: this.ctx.config.PUBLIC_URL };
  }

  /** Ends every session of the user: their refresh tokens and (through the generation) access tokens. */
  async logout(principal: Principal): Promise<void> {
    if (principal.actorType !== "user" || !principal.tokenId || !principal.userId) {
      throw errors.unauthenticated("Logout needs an access token");
    }
    await this.revoke(principal.userId, null);
    await this.audit.record(principal, { action: "user.logout", resourceType: "user", resourceId: principal.userId });
  }

  /**
   * Revokes a refresh family (or, with null, all the user's refresh tokens) and every access token of
   * the user, in one commit. A family that was already revoked ended its access tokens then (every
   * path that revokes refresh tokens moves the generation), so replaying one of its tokens later does
   * not end the user's newer sessions again.
   */
  private async revoke(userId: number, familyId: string | null): Promise<void> {
    const { prisma } = this.ctx.db;
    await this.ctx.authCache.afterChange(`users:${userId}`, () => prisma.$transaction(async (tx) => {
      const { count } = await tx.refreshToken.updateMany({
        where: { userId, revokedAt: null, ...(familyId ? { familyId } : {}) },
        data: { revokedAt: new Date() },
      });
      if (count > 0 || familyId === null) await tx.user.updateMany({ where: { id: userId }, data: { tokenGeneration: { increment: 1 } } });
    }));
  }

  /**
   * What the presented credential is and may do, without a database read: integrations use it to
   * check a key or token (and its effective scopes: key or token scope ∩ the role, now).
   */
  whoami(p: Principal | null): Whoami {
    if (!p) throw errors.unauthenticated("Not authenticated");
    return {
      actorType: p.actorType,
      userId: p.userId,
      email: p.email,
      orgId: p.orgId,
      roleId: p.roleId,
      credentialId: p.credentialId,
      scopes: scopesOf(p),
      expiresAt: p.tokenExpiresAt,
    };
  }

  /** Creates the first administrator from ADMIN_EMAIL/ADMIN_PASSWORD when no user exists yet. */
  async bootstrapAdmin(): Promise<void> {
    const { config, db, log } = this.ctx;
    const { prisma } = db;
    await prisma.$transaction(async (tx) => {
      // Serialise concurrent starts: only one process may create the first organisation and admin.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(727002)`;
      let org = await tx.organisation.findUnique({ where: { name: config.ORG_NAME } });
      if (!org) org = await tx.organisation.create({ data: { name: config.ORG_NAME, uuid: crypto.randomUUID(), local: true } });
      if (!config.ADMIN_EMAIL || !config.ADMIN_PASSWORD) return;
      if ((await tx.user.count()) > 0) return;
      const admin = await tx.user.create({
        data: {
          email: config.ADMIN_EMAIL.toLowerCase(),
          passwordHash: await hashPassword(config.ADMIN_PASSWORD),
          roleId: 1,
          orgId: org.id,
        },
      });
      await this.audit.record(null, { action: "user.created", resourceType: "user", resourceId: admin.id, metadata: { email: admin.email, role_id: 1, bootstrap: true } }, tx);
      log.info({ userId: admin.id, email: admin.email }, "created the first administrator");
    });
  }

  private async issue(userId: number, generation: number, scope: string[] | null, familyId: string): Promise<Omit<TokenResponse, "scope">> {
    const { tokens, config, db } = this.ctx;
    const access = await tokens.issue(userId, generation, scope);
    const refresh = crypto.randomBytes(32).toString("base64url");
    await db.prisma.refreshToken.create({
      data: {
        userId,
        tokenHash: sha256(refresh),
        familyId,
        scope: scope ? scope.join(" ") : null,
        expiresAt: new Date(Date.now() + config.REFRESH_TOKEN_TTL_DAYS * 86_400_000),
      },
    });
    return { access_token: access.token, token_type: "bearer", expires_in: tokens.ttlSeconds, refresh_token: refresh };
  }
}

function parseScope(scope: string | undefined): string[] | null {
  if (scope === undefined || scope.trim() === "") return null;
  const list = [...new Set(scope.trim().split(/\s+/))];
  const unknown = list.filter((s) => !isKnownScope(s));
  if (unknown.length) throw errors.invalidScope(`Unknown scopes: ${unknown.slice(0, 20).join(", ")}`);
  return list;
}
