import type { FastifyRequest } from "fastify";
import net from "node:net";
import type { RequestOrigin } from "../src/auth/principal.ts";

/** Client address (Fastify honours X-Forwarded-For only when trustProxy is configured) and user agent. */
export function originOf(request: FastifyRequest): RequestOrigin {
  const ip = request.ip && net.isIP(request.ip) ? request.ip : null;
  const ua = request.headers["user-agent"];
  return { ip, userAgent: typeof ua === "string" ? ua.slice(0, 512) : null };
}
