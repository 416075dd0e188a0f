import crypto from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { dataDirSecret } from "../platform/data-dir-secret.ts";

const ISSUER = "workbench";
const AUDIENCE = "workbench-api";

export interface AccessClaims {
  userId: number;
  /** Scopes asked for at login; null means "whatever the role grants". */
  scope: string[] | null;
  /** The user's token generation at issue: a token of an older generation is revoked. */
  generation: number;
  jti: string;
  expiresAt: Date;
}

/** Verified tokens kept so a client reusing its token is not re-verified on every request. */
const VERIFIED_CACHE_SIZE = 10_000;

export class AccessTokens {
  private readonly key: Uint8Array;
  /**
   * Verification of the same token string always gives the same claims, so the result is kept until
   * the token expires. Revocation (the generation) and the user's state are checked on every request elsewhere.
   */
  private readonly verified = new Map<string, AccessClaims>();
  constructor(secret: string, readonly ttlSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(userId: number, generation: number, scope: string[] | null, ttlSeconds = this.ttlSeconds): Promise<{ token: string; jti: string }> {
    const jti = crypto.randomUUID();
    const jwt = new SignJWT({ token_use: "access", gen: generation, ...(scope ? { scope: scope.join(" ") } : {}) })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(userId))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds);
    return { token: await jwt.sign(this.key), jti };
  }

  /** Returns null for anything that is not a valid, unexpired access token of ours. */
  async verify(token: string): Promise<AccessClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt.getTime() > Date.now()) return known;
      this.verified.delete(token);
      return null;
    }
    const claims = await this.verifySignature(token);
    if (claims) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims;
  }

  private async verifySignature(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ["sub", "jti", "exp", "iat"],
      });
      if (payload.token_use !== "access") return null;
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || userId <= 0) return null;
      if (typeof payload.jti !== "string" || !/^[0-9a-f-]{36}$/.test(payload.jti)) return null;
      // Tokens issued before generations existed carry none: refused, their holders refresh.
      if (!Number.isSafeInteger(payload.gen) || (payload.gen as number) < 0) return null;
      const scope = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : null;
      return { userId, scope, generation: payload.gen as number, jti: payload.jti, expiresAt: new Date((payload.exp as number) * 1000) };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
  }
}

/** JWT_SECRET, or one generated at first start and kept in DATA_DIR (mode 0600). */
export function resolveJwtSecret(configured: string | undefined, dataDir: string): string {
  return configured ?? dataDirSecret(dataDir, "jwt-secret", (secret) => secret.length >= 32);
}

export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
