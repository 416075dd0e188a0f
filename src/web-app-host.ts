import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "./platform/logger.ts";

/** Where `npm run build:web` (run by `npm ci`) writes the analysts' web UI. */
export const WEB_APP_DIR = path.resolve(import.meta.dirname, "../dist/web");

/**
 * The UI's pages run no inline script and load nothing from elsewhere. Mantine sets styles through
 * style attributes and one <style> element, hence 'unsafe-inline' for styles only.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Paths a browser opens itself that stay with the API (GraphiQL, the OpenAPI document, MCP, MISP). */
const NOT_THE_APP = /^\/(graphql|openapi\.json|healthz|mcp|misp|assets)(\/|$|\?)/;

/**
 * Serves the single-page app at `/`. A browser's navigation (Sec-Fetch-Mode: navigate, which only
 * browsers send and only when opening a page) gets the app at any path, so `/events/42` in the
 * address bar opens the event page; every programmatic request, fetch() and the UI's own API calls
 * included, reaches the API unchanged.
 */
export function registerWebApp(app: FastifyInstance, log: Logger): WebApp {
  const indexFile = path.join(WEB_APP_DIR, "index.html");
  const indexHtml = fs.existsSync(indexFile) ? fs.readFileSync(indexFile) : null;
  if (!indexHtml) log.warn({ dir: WEB_APP_DIR }, "the web UI is not built (npm run build:web): / answers 503");

  if (indexHtml) {
    void app.register(fastifyStatic, {
      root: path.join(WEB_APP_DIR, "assets"),
      prefix: "/assets/",
      // File names carry a content hash: cache for good; serve the .gz written at build time.
      immutable: true,
      maxAge: "365d",
      preCompressed: true,
      decorateReply: false,
      index: false,
      wildcard: true,
    });
  }

  const sendApp = (reply: FastifyReply) => {
    if (!indexHtml) {
      return reply.status(503).type("text/plain; charset=utf-8").send("The web UI is not built: run `npm run build:web`.\n");
    }
    return reply
      .header("Content-Security-Policy", WEB_APP_CSP)
      .header("Cache-Control", "no-cache")
      .header("X-Content-Type-Options", "nosniff")
      .header("Referrer-Policy", "same-origin")
      .type("text/html; charset=utf-8")
      .send(indexHtml);
  };

  const answerNavigation = (request: FastifyRequest, reply: FastifyReply) =>
    isPageNavigation(request) && !NOT_THE_APP.test(request.url) ? sendApp(reply) : null;
  // API routes: the hook. Unknown paths: the server's 404 handler asks (hooks do not reach it).
  app.addHook("onRequest", async (request, reply) => answerNavigation(request, reply) ?? undefined);
  app.get("/", async (_request, reply) => sendApp(reply));
  return { answerNavigation };
}

export interface WebApp {
  /** Answers a browser's page navigation with the app; null for any other request. */
  answerNavigation(request: FastifyRequest, reply: FastifyReply): FastifyReply | null;
}

function isPageNavigation(request: FastifyRequest): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  return request.headers["sec-fetch-mode"] === "navigate" && request.headers["sec-fetch-dest"] === "document";
}
