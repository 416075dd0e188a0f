import { z } from "zod";
import { named, nullableTimestamp } from "../contract.ts";
import { defineRoute } from "../route.ts";
import { ScopeCatalogueSchema } from "../serializers.ts";
import { errors } from "../../src/platform/errors.ts";
import { originOf } from "../origin.ts";
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from "../refresh-cookie.ts";
import type { RouteContext } from "../route.ts";
import type { TokenResponse } from "../../src/auth/auth.service.ts";

const tokenForm = z
  .object({
    grant_type: z.string().max(64).optional(),
    username: z.string().max(320).optional(),
    password: z.string().max(1024).optional(),
    refresh_token: z.string().max(512).optional(),
    scope: z.string().max(4096).optional(),
    client_id: z.string().max(255).optional(),
    client_secret: z.string().max(255).optional(),
    refresh_cookie: z
      .enum(["true", "false"])
      .optional()
      .describe("`true`: the refresh token travels in an HttpOnly, SameSite=Strict cookie limited to /auth/refresh instead of the body (browsers)"),
  })
  .strict();

const tokenResponse = named(
  "Token",
  z.object({
    access_token: z.string().describe("A JWT for `Authorization: Bearer ...`"),
    token_type: z.literal("bearer"),
    expires_in: z.number().describe("Seconds until the access token expires"),
    refresh_token: z
      .string()
      .optional()
      .describe("Single use: POST /auth/refresh or grant_type=refresh_token swaps it for a new pair. Absent when it was set as the refresh cookie"),
    scope: z.string().describe("The granted scopes, space-separated"),
  }),
  "An OAuth2 token answer",
);

const IdentitySchema = named(
  "Identity",
  z.object({
    actor_type: z.enum(["user", "api_key", "system"]).describe("What authenticated: a user's access token (user) or an API key (api_key, MCP tokens too)"),
    user_id: z.int().nullable(),
    email: z.string().nullable(),
    org_id: z.int().nullable(),
    role_id: z.int().nullable(),
    credential_id: z.int().nullable().describe("The API key's id; null for an access token"),
    scopes: z.array(z.string()).describe("Effective scopes: the credential's scopes within the user's current role"),
    expires_at: nullableTimestamp.describe("When the credential expires; null when it does not"),
  }),
  "The caller",
);

export const authRoutes = [
  defineRoute({
    method: "POST",
    path: "/auth/token", operationId: "createToken",
    summary: "OAuth2 token endpoint: password and refresh_token grants (form-encoded); failed passwords are throttled per account and address (429 with Retry-After)",
    tag: "auth",
    scopes: null,
    bodyType: "form",
    body: tokenForm,
    status: 200,
    response: tokenResponse,
    async handler({ body, services, request, reply }) {
      reply.header("Cache-Control", "no-store");
      const grant = body.grant_type ?? "password";
      if (grant === "password") {
        const missing = (["username", "password"] as const).filter((k) => !body[k]);
        if (missing.length) throw errors.validation(missing.map((k) => ({ type: "missing", loc: ["body", k], msg: "Field required" })));
        const tokens = await services.auth.passwordGrant(originOf(request), body.username!, body.password!, body.scope);
        return body.refresh_cookie === "true" ? inCookie(tokens, { services, request, reply }) : tokens;
      }
      if (grant === "refresh_token") {
        if (!body.refresh_token) throw errors.validation([{ type: "missing", loc: ["body", "refresh_token"], msg: "Field required" }]);
        const tokens = await services.auth.refreshGrant(body.refresh_token);
        return body.refresh_cookie === "true" ? inCookie(tokens, { services, request, reply }) : tokens;
      }
      throw errors.unsupportedGrantType(grant);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/auth/refresh", operationId: "refreshToken",
    summary:
      "Refresh an access token (the peer's JSON form of the refresh_token grant). Without `refresh_token` in the body, the refresh cookie set by `refresh_cookie=true` is used and rotated",
    tag: "auth",
    scopes: null,
    body: z.object({ refresh_token: z.string().min(1, "Refresh token is required").max(512).optional() }).strict(),
    status: 200,
    response: tokenResponse,
    async handler({ body, services, request, reply }) {
      reply.header("Cache-Control", "no-store");
      if (body.refresh_token) return services.auth.refreshGrant(body.refresh_token);
      const fromCookie = readRefreshCookie(request);
      if (!fromCookie) throw errors.validation([{ type: "missing", loc: ["body", "refresh_token"], msg: "Refresh token is required" }]);
      try {
        return inCookie(await services.auth.refreshGrant(fromCookie), { services, request, reply });
      } catch (err) {
        // A refused cookie is worthless: drop it so the browser stops sending it.
        clearRefreshCookie(request, reply, services.auth.refreshCookiePolicy().publicUrl);
        throw err;
      }
    },
  }),
  defineRoute({
    method: "POST",
    path: "/auth/logout", operationId: "logout",
    summary: "End every session of the caller: their refresh tokens and access tokens",
    tag: "auth",
    scopes: [],
    status: 204,
    async handler({ principal, services, request, reply }) {
      await services.auth.logout(principal!);
      clearRefreshCookie(request, reply, services.auth.refreshCookiePolicy().publicUrl);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/auth/whoami", operationId: "whoami",
    summary: "The caller's identity and effective scopes (checks a key or token; no scope needed)",
    tag: "auth",
    scopes: [],
    status: 200,
    response: IdentitySchema,
    handler: ({ principal, services }): z.output<typeof IdentitySchema> => {
      const w = services.auth.whoami(principal);
      return {
        actor_type: w.actorType,
        user_id: w.userId,
        email: w.email,
        org_id: w.orgId,
        role_id: w.roleId,
        credential_id: w.credentialId,
        scopes: w.scopes,
        expires_at: w.expiresAt?.toISOString() ?? null,
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/auth/scopes", operationId: "listAuthScopes",
    summary: "Every scope the service knows, with a one-line description",
    tag: "auth",
    scopes: [],
    status: 200,
    response: ScopeCatalogueSchema,
    handler: ({ services }) => services.roles.scopeCatalogue(),
  }),
];

/** Moves the refresh token from the answer's body into the refresh cookie. */
function inCookie(tokens: TokenResponse, { services, request, reply }: Pick<RouteContext<unknown, unknown, unknown>, "services" | "request" | "reply">): TokenResponse {
  const { maxAgeSeconds, publicUrl } = services.auth.refreshCookiePolicy();
  setRefreshCookie(request, reply, tokens.refresh_token!, maxAgeSeconds, publicUrl);
  return { ...tokens, refresh_token: undefined };
}
