import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The web UI keeps its refresh token where scripts cannot read it: an HttpOnly, SameSite=Strict
 * cookie sent only to the refresh route. A cross-site page can neither read it nor make the browser
 * send it, and the access token stays in the page's memory.
 */
export const REFRESH_COOKIE = "wb_refresh";
export const REFRESH_COOKIE_PATH = "/auth/refresh";

export function readRefreshCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== "string") return undefined;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === REFRESH_COOKIE) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

export function setRefreshCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number, publicUrl: string | undefined): void {
  reply.header("Set-Cookie", cookie(request, token, maxAgeSeconds, publicUrl));
}

/** Any response may clear it: a Set-Cookie with the same name and path replaces it whatever the request's path. */
export function clearRefreshCookie(request: FastifyRequest, reply: FastifyReply, publicUrl: string | undefined): void {
  reply.header("Set-Cookie", cookie(request, "", 0, publicUrl));
}

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number, publicUrl: string | undefined): string {
  const secure = request.protocol === "https" || (publicUrl ?? "").startsWith("https:");
  return `${REFRESH_COOKIE}=${value}; Path=${REFRESH_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}
