import type { IncomingMessage } from "node:http";
import { GraphQLError, Kind, type GraphQLSchema } from "graphql";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { AppError, InputError, fromDatabaseRefusal } from "../platform/errors.ts";
import type { Principal, RequestOrigin } from "../auth/principal.ts";
import type { Runtime } from "../runtime.ts";
import type { GraphQLContext } from "./builder.ts";
import { graphqlSchema } from "./schema.ts";
import { costLimitsPlugin } from "./cost-limits.ts";
import { graphqlCaller, useAnonymousGuard, type GraphQLCaller } from "./anonymous-guard.ts";
import { useUnsafeTextGuard } from "./unsafe-text-guard.ts";

/** Initial context: over HTTP Yoga passes the request; over graphql-ws we pass the principal. */
export interface ServerContext {
  request?: Request;
  wsPrincipal?: Principal | null;
  origin?: RequestOrigin;
  /** Set by the anonymous guard, which authenticates HTTP requests before they are parsed. */
  caller?: GraphQLCaller;
}

/**
 * A service's field path as the caller's argument path: under the operation's `input` argument
 * when the field takes one and the path does not start with another of its arguments.
 */
function argumentPath(schema: GraphQLSchema, error: GraphQLError | unknown, field: (string | number)[]): (string | number)[] {
  const node = error instanceof GraphQLError ? error.nodes?.[0] : undefined;
  const root = node?.kind === Kind.FIELD && error instanceof GraphQLError && error.path?.length === 1 ? node.name.value : undefined;
  const definition = root ? (schema.getMutationType()?.getFields()[root] ?? schema.getQueryType()?.getFields()[root]) : undefined;
  const names = new Set(definition?.args.map((a) => a.name) ?? []);
  return names.has("input") && !names.has(String(field[0])) ? ["args", "input", ...field] : ["args", ...field];
}

export function createGraphQLServer(runtime: Runtime): YogaServerInstance<ServerContext, GraphQLContext> {
  const schema = graphqlSchema();
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    logging: false,
    landingPage: false,
    graphiql: { title: "Threat-Intelligence Workbench" },
    plugins: [useAnonymousGuard(runtime), costLimitsPlugin(), useUnsafeTextGuard()],
    maskedErrors: {
      maskError(error, message) {
        const thrown = error instanceof GraphQLError ? error.originalError : error;
        const refused = fromDatabaseRefusal(thrown);
        if (refused && runtime.isReady) runtime.ctx.log.warn({ err: thrown }, "the database refused the request: validation or locking misses a case");
        const located = refused ?? thrown;
        // A service names its own fields; over GraphQL they are the operation's arguments.
        const original = located instanceof InputError ? located.located((field) => argumentPath(schema, error, field)) : located;
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
      const base = { services, pubsub: ctx.pubsub, prisma: ctx.db.prisma };
      if (initial.wsPrincipal !== undefined) return { ...base, principal: initial.wsPrincipal, authError: null };
      const caller = initial.caller ?? (await graphqlCaller(runtime, initial.request?.headers.get("authorization") ?? null, initial.origin));
      return { ...base, ...caller };
    },
  });
}

export function originFromNode(req: IncomingMessage): RequestOrigin {
  const ua = req.headers["user-agent"];
  return { ip: req.socket.remoteAddress ?? null, userAgent: typeof ua === "string" ? ua.slice(0, 512) : null };
}
