import type { Server } from "node:http";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer, type WebSocket } from "ws";
import { GraphQLError, type ExecutionArgs } from "graphql";
import { AppError } from "../platform/errors.ts";
import type { Principal, RequestOrigin } from "../auth/principal.ts";
import type { Runtime } from "../runtime.ts";
import type { createGraphQLServer } from "./yoga.ts";
import { originFromNode } from "./yoga.ts";

type Extra = Record<PropertyKey, unknown> & {
  principal?: Principal | null;
};

type Enveloped = ReturnType<ReturnType<typeof createGraphQLServer>["getEnveloped"]>;

/** How often connections are checked for an expired token (the longest it stays open after expiry). */
const EXPIRY_SWEEP_MS = 1_000;

/**
 * graphql-ws on the HTTP server's /graphql path. The connection authenticates once, from
 * `connectionParams.authorization` (same values as the HTTP header): no credential closes it with
 * 4401, a rejected one with 4403, and so is one whose credential stops authenticating later (or
 * whose token expires). Execution goes through Yoga's envelop so both transports share one schema,
 * context and error masking.
 */
export function attachGraphQLWebSocket(server: Server, runtime: Runtime, yoga: ReturnType<typeof createGraphQLServer>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/graphql" || !runtime.isReady) {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
  });

  // Live connections and their credentials: re-checked whenever an authentication row changes (a key
  // disabled, locked or deleted; a user disabled, deleted, or their access tokens ended by a role,
  // organisation or password change, a logout or a reused refresh token), closed with 4403 once it fails.
  const live = new Map<WebSocket, { raw: string; origin: RequestOrigin; expiresAt: number | null }>();
  let stopWatching: (() => void) | null = null;
  // One sweep a second closes connections whose token has expired. A timer per connection would
  // cost more than it saves: Node keeps the list of a cleared unref'd timer until its due time, one
  // list per distinct delay, so every connection closed early left ~100 B for the token's lifetime.
  let sweep: NodeJS.Timeout | null = null;
  const closeExpired = () => {
    const now = Date.now();
    let expiring = 0;
    for (const [socket, c] of live) {
      if (c.expiresAt === null) continue;
      if (c.expiresAt <= now) {
        live.delete(socket);
        socket.close(4403, "Token expired");
      } else expiring++;
    }
    // Nothing left to expire: the sweep stops (an idle service runs no timer) until the next watch().
    if (expiring === 0 && sweep) {
      clearInterval(sweep);
      sweep = null;
    }
  };
  const watch = (socket: WebSocket, raw: string, origin: RequestOrigin, expiresAt: Date | null) => {
    // Connections exist only once the service is ready, so its cache exists by now.
    stopWatching ??= runtime.ctx.authCache.onInvalidate(recheck);
    live.set(socket, { raw, origin, expiresAt: expiresAt?.getTime() ?? null });
    if (expiresAt && !sweep) {
      sweep = setInterval(closeExpired, EXPIRY_SWEEP_MS);
      sweep.unref();
    }
    socket.once("close", () => live.delete(socket));
  };
  let pending: NodeJS.Timeout | null = null;
  const recheck = () => {
    if (pending) return;
    pending = setTimeout(async () => {
      pending = null;
      for (const [socket, c] of live) {
        const ok = await runtime.services.authenticator.authenticate([c.raw], c.origin).then(
          (p) => p !== null,
          () => false,
        );
        if (!ok) {
          live.delete(socket);
          socket.close(4403, "Forbidden");
        }
      }
    }, 50);
  };

  const disposable = useServer<Record<string, unknown> | undefined, Extra>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      onConnect: async (ctx) => {
        const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        if (typeof raw !== "string" || raw.trim() === "") {
          (ctx.extra as unknown as { socket: WebSocket }).socket.close(4401, "Unauthorized");
          return false;
        }
        try {
          const request = (ctx.extra as unknown as { request: import("node:http").IncomingMessage }).request;
          const socket = (ctx.extra as unknown as { socket: WebSocket }).socket;
          const origin = originFromNode(request);
          ctx.extra.principal = await runtime.services.authenticator.authenticate([raw], origin);
          if (ctx.extra.principal === null) return false;
          watch(socket, raw, origin, ctx.extra.principal.tokenExpiresAt);
          return true;
        } catch (err) {
          if (err instanceof AppError) return false;
          throw err;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const enveloped = yoga.getEnveloped({ wsPrincipal: ctx.extra.principal ?? null });
        let document;
        try {
          document = enveloped.parse(payload.query);
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: enveloped,
        };
        const validationErrors = enveloped.validate(args.schema, args.document);
        if (validationErrors.length) return validationErrors;
        return args;
      },
    },
    wss,
  );

  return {
    async close() {
      stopWatching?.();
      if (pending) clearTimeout(pending);
      if (sweep) clearInterval(sweep);
      await disposable.dispose();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
    clientCount: () => wss.clients.size,
  };
}
