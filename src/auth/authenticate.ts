import type pg from "pg";
import { errors } from "../platform/errors.ts";
import { looksLikeJwt, type AccessTokens } from "./jwt.ts";
import type { Principal, RequestOrigin } from "./principal.ts";
import type { AuthCache, CachedUser } from "./auth-cache.ts";
import { sharingGroupIdsSql } from "./sharing-group-membership.ts";

const API_KEY_SHAPE = /^[0-9a-f]{40}$/;

/** Resolves an API key to a principal; supplied by the API-keys module. */
export type ApiKeyResolver = (token: string, origin: RequestOrigin) => Promise<Principal | null>;


/**
 * Turns the Authorization header into a principal. Accepted: `Bearer <JWT>`, `Bearer <API key>`
 * and a raw 40-hex API key. Everything else (Basic, empty Bearer, two headers, unknown shapes) is 401.
 * No header at all is anonymous (null); routes that need a caller then answer 401.
 */
export class Authenticator {
  constructor(
    private readonly pool: pg.Pool,
    private readonly tokens: AccessTokens,
    private readonly apiKeyResolver: ApiKeyResolver,
    private readonly cache: AuthCache,
  ) {}

  async authenticate(headerValues: readonly string[], origin: RequestOrigin): Promise<Principal | null> {
    if (headerValues.length === 0) return null;
    if (headerValues.length > 1) throw errors.unauthenticated("Multiple Authorization headers");
    const value = headerValues[0].trim();
    let credential: string;
    const bearer = /^bearer(?:\s+(.*))?$/i.exec(value);
    if (bearer) credential = (bearer[1] ?? "").trim();
    else if (API_KEY_SHAPE.test(value)) credential = value;
    else throw errors.unauthenticated();
    if (!credential) throw errors.unauthenticated();

    if (looksLikeJwt(credential)) return this.fromAccessToken(credential, origin);
    if (API_KEY_SHAPE.test(credential)) {
      const p = await this.apiKeyResolver(credential, origin);
      if (p) return p;
    }
    throw errors.unauthenticated();
  }

  private async fromAccessToken(token: string, origin: RequestOrigin): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    if (!claims) throw errors.unauthenticated();
    const user = await this.cache.user(claims.userId, async () => {
      const { rows } = await this.pool.query<CachedUser>(
        `SELECT u.id, u.email, u.org_id, u.role_id, u.disabled, u.token_generation, r.scopes, ${sharingGroupIdsSql("u.org_id")} AS sharing_group_ids
           FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = $1`,
        [claims.userId],
      );
      return rows[0] ?? null;
    });
    if (!user || user.disabled) throw errors.unauthenticated();
    // Disabling the user, changing their role, organisation or password, logging out and a reused
    // refresh token move the generation: every token issued before it ends here.
    if (claims.generation !== user.token_generation) throw errors.tokenRevoked();
    return {
      actorType: "user",
      userId: user.id,
      email: user.email,
      orgId: user.org_id,
      roleId: user.role_id,
      credentialId: null,
      tokenId: claims.jti,
      tokenExpiresAt: claims.expiresAt,
      // The role is read on every request, so a downgrade applies at once.
      grantSets: claims.scope ? [user.scopes, claims.scope] : [user.scopes],
      sharingGroupIds: user.sharing_group_ids,
      ip: origin.ip,
      userAgent: origin.userAgent,
    };
  }
}
