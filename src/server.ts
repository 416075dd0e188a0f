import crypto from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import multipart from "@fastify/multipart";
import { MAX_UPLOAD_BYTES } from "./modules/feeds/index.ts";
import Fastify, { LogController, type ConnectionError, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { AppError, errors, fromDatabaseRefusal } from "./platform/errors.ts";
import type { Logger } from "./platform/logger.ts";
import type { Runtime } from "./runtime.ts";
import { createGraphQLServer, type ServerContext } from "./graphql/yoga.ts";
import { executeMultipart } from "./graphql/multipart.ts";
import { attachGraphQLWebSocket } from "./graphql/websocket.ts";
import { restRouteTable, routeTable } from "../rest-shim/index.ts";
import { MISP_PREFIX, mispException, mispRoutes, registerMispApi } from "../rest-shim/misp/index.ts";
import { methodsForPath, registerRoutes } from "../rest-shim/register.ts";
import { buildOpenApi } from "../rest-shim/openapi.ts";
import { originOf } from "../rest-shim/origin.ts";
import { HealthCheck } from "./platform/health.ts";
import { parseQueryString } from "./platform/query-string.ts";
import { registerMcpEndpoint } from "./mcp/mcp-http.ts";
import { registerWebApp } from "./web-app-host.ts";

export const VERSION = "0.1.0";
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** How long a closing server lets the answers in flight finish before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;

export interface HttpServer {
  app: FastifyInstance;
  /** Stops accepting; answers in flight get `graceMs` (default 10 s) to finish, then their connections are cut. */
  close(graceMs?: number): Promise<void>;
  webSocketClients(): number;
}

/** Fastify with the REST shim, GraphQL over HTTP and graphql-ws, /healthz and /openapi.json. */
export function buildServer(runtime: Runtime, log: Logger): HttpServer {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // One log line per request comes from our onResponse hook, not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Explore queries travel in the URL (GET /attributes/search?query=...): room for the parser's
    // 10 000-character limit even percent-encoded, so a long query gets its 400, not Node's bare 431.
    http: { maxHeaderSize: 128 * 1024 },
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path parameters reach the route schemas (422 with a reason) instead of Fastify's bare 414.
      maxParamLength: 4096,
      querystringParser: parseQueryString,
    },
    // While closing, our onRequest hook answers 503 in the error shape (Fastify's own 503 is not).
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    // Errors the router raises before any route runs answer in our body shape too.
    frameworkErrors: (err, request, reply) => {
      const tooLong = err.code === "FST_ERR_MAX_PARAM_LENGTH";
      const path = request.url.split("?")[0];
      if (path.startsWith(`${MISP_PREFIX}/`)) {
        // The MISP API answers in MISP's shape: MISP finds nothing by such an id.
        const misp = tooLong ? mispException(404, "Not Found") : mispException(400, "Bad Request");
        return void (reply as FastifyReply).status(misp.status).send(misp.toBody(path));
      }
      const appError = tooLong ? errors.uriTooLong("A path parameter is longer than 4096 characters") : errors.badRequest("The request URL cannot be decoded");
      void (reply as FastifyReply).status(appError.status).send(appError.toBody());
    },
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
  });

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
    // No prototype: a field named `__proto__` or `constructor` is a field like any other.
    const form: Record<string, string | string[]> = Object.create(null);
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prev = form[k];
      // A repeated field becomes a list, which no form schema accepts: ambiguity is a 422.
      form[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
    }
    done(null, form);
  });

  // Uploads stream part by part; the limits stop a request from smuggling more than one file or big fields.
  void app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12, headerPairs: 100 } });

  let closing = false;
  app.addHook("onRequest", async (request, reply) => {
    reply.header("X-Request-Id", request.id);
    if (closing) {
      reply.header("Connection", "close");
      throw errors.unavailable("Service is shutting down");
    }
    if (!runtime.isReady && request.url !== "/healthz") throw errors.unavailable(`Service is starting: ${runtime.stage}`);
  });

  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: request.url.split("?")[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: originOf(request).ip,
      },
      "request",
    );
  });

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    const refused = fromDatabaseRefusal(err);
    if (refused) request.log.warn({ err }, "the database refused the request: validation or locking misses a case");
    const appError = refused ?? toAppError(err);
    if (appError.status >= 500) request.log.error({ err }, "request failed");
    reply.status(appError.status).headers(appError.headers).send(appError.toBody());
  });

  const webApp = registerWebApp(app, log);

  app.setNotFoundHandler((request, reply) => {
    if (webApp.answerNavigation(request, reply)) return;
    const allowed = methodsForPath(routeTable, request.url);
    const appError = allowed.length ? errors.methodNotAllowed(allowed) : errors.routeNotFound();
    reply.status(appError.status).headers(appError.headers).send(appError.toBody());
  });

  const health = new HealthCheck({
    startingStage: () => (runtime.isReady ? null : runtime.stage),
    pingDatabase: () => runtime.ctx.db.probePool.query("SELECT 1"),
  });
  app.get("/healthz", async (_req, reply) => {
    const state = await health.check();
    reply.status(state.ok ? 200 : 503).send(state.ok ? { status: "ok" } : { status: "unavailable", detail: state.reason, code: "service_unavailable" });
  });

  // Built at the first request: `servers` names PUBLIC_URL, known once the service is ready.
  let openapi: ReturnType<typeof buildOpenApi> | null = null;
  app.get("/openapi.json", async () => (openapi ??= buildOpenApi(routeTable, VERSION, runtime.ctx.config.PUBLIC_URL)));

  const yoga = createGraphQLServer(runtime);
  app.route({
    url: "/graphql",
    method: ["GET", "POST", "OPTIONS"],
    handler: async (req, reply) => {
      if (req.method === "POST" && (req.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/form-data")) {
        return reply.send(await executeMultipart(yoga, req, reply, originOf(req)));
      }
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { origin: originOf(req) } satisfies ServerContext);
      response.headers.forEach((value, key) => reply.header(key, value));
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });

  registerRoutes(app, restRouteTable, runtime);
  registerMispApi(app, mispRoutes, runtime);
  registerMcpEndpoint(app, runtime);
  const ws = attachGraphQLWebSocket(app.server, runtime, yoga);

  return {
    app,
    webSocketClients: ws.clientCount,
    async close(graceMs = CLOSE_GRACE_MS) {
      closing = true;
      await ws.close();
      // A client that stopped reading a download keeps its connection busy, and the close waited for
      // it (72 s in the tests, or until the client went away): a stop must not hang on a client.
      const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (a request line and headers over
 * maxHeaderSize, a malformed request, one not received in time): they answer in the error shape too.
 */
function answerClientError(err: ConnectionError, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const appError =
    err.code === "HPE_HEADER_OVERFLOW"
      ? errors.headersTooLarge()
      : err.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
        ? errors.payloadTooLarge("Chunk extensions are too large")
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? errors.requestTimeout()
          : errors.badRequest("Malformed HTTP request");
  const body = JSON.stringify(appError.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function toAppError(err: FastifyError | AppError): AppError {
  if (err instanceof AppError) return err;
  const status = (err as FastifyError).statusCode ?? 500;
  if (status === 413) return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType("Unsupported Content-Type");
  if (status === 503) return errors.unavailable("Service is shutting down");
  if (status >= 400 && status < 500) {
    // Fastify's own messages (bad JSON, empty body) carry no internals; pass them on.
    return errors.badRequest(err.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, "Body is not valid JSON"));
  }
  return errors.internal();
}
