import type { IncomingMessage } from "node:http";
import { GraphQLError } from "graphql";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { AppError, errors } from "../platform/errors.ts";
import type { Principal, RequestOrigin } from "../auth/principal.ts";
import type { Runtime } from "../runtime.ts";
import type { GraphQLContext } from "./builder.ts";
import { graphqlSchema } from "./schema.ts";
import { costLimitsPlugin } from "./cost-limits.ts";

/** Initial context: over HTTP Yoga passes the request; over graphql-ws we pass the principal. */
export interface ServerContext {
  request?: Request;
  wsPrincipal?: Principal | null;
  origin?: RequestOrigin;
}

export function createGraphQLServer(runtime: Runtime): YogaServerInstance<ServerContext, GraphQLContext> {
  return createYoga<ServerContext, GraphQLContext>({
    schema: graphqlSchema(),
    graphqlEndpoint: "/graphql",
    logging: false,
    landingPage: false,
    graphiql: { title: "Threat-Intelligence Workbench" },
    plugins: [costLimitsPlugin()],
    maskedErrors: {
      maskError(error, message) {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof AppError) {
          return new GraphQLError(original.message, {
            ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
            extensions: { ...original.extra, code: original.code, status: original.status, detail: original.detail },
          });
        }
        // Errors without a path come from the request itself (variables the schema's types cannot
        // carry, such as an unknown enum value or a bad DateTime): the caller's mistake, said as is.
        if (error instanceof GraphQLError && (!original || !error.path)) return error;
        if (runtime.isReady) runtime.ctx.log.error({ err: original ?? error }, "unhandled error in a resolver");
        return new GraphQLError(message, { extensions: { code: "internal_error", status: 500 } });
      },
    },
    async context(initial): Promise<GraphQLContext> {
      const { services, ctx } = runtime;
      const base = { services, pubsub: ctx.pubsub };
      if (initial.wsPrincipal !== undefined) return { ...base, principal: initial.wsPrincipal, authError: null };
      const header = initial.request?.headers.get("authorization");
      try {
        // The Fetch API folds repeated headers into one comma-joined value; a comma is never part
        // of a valid credential, so that is rejected like two headers.
        if (header?.includes(",")) throw errors.unauthenticated("Multiple Authorization headers");
        const principal = await services.authenticator.authenticate(header ? [header] : [], initial.origin ?? { ip: null, userAgent: null });
        return { ...base, principal, authError: null };
      } catch (err) {
        if (err instanceof AppError) return { ...base, principal: null, authError: err };
        throw err;
      }
    },
  });
}

export function originFromNode(req: IncomingMessage): RequestOrigin {
  const ua = req.headers["user-agent"];
  return { ip: req.socket.remoteAddress ?? null, userAgent: typeof ua === "string" ? ua.slice(0, 512) : null };
}
