import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { AppError, errors } from "../platform/errors.ts";
import type { Principal, RequestOrigin } from "../auth/principal.ts";
import type { Runtime } from "../runtime.ts";

/** Who sent a GraphQL request: a principal, or the reason the credential was refused. */
export interface GraphQLCaller {
  principal: Principal | null;
  authError: AppError | null;
}

/** Authenticates a GraphQL request's Authorization header (null: none sent). */
export async function graphqlCaller(runtime: Runtime, header: string | null, origin: RequestOrigin | undefined): Promise<GraphQLCaller> {
  try {
    // The Fetch API folds repeated headers into one comma-joined value; a comma is never part
    // of a valid credential, so that is rejected like two headers.
    if (header?.includes(",")) throw errors.unauthenticated("Multiple Authorization headers");
    const principal = await runtime.services.authenticator.authenticate(header ? [header] : [], origin ?? { ip: null, userAgent: null });
    return { principal, authError: null };
  } catch (err) {
    if (err instanceof AppError) return { principal: null, authError: err };
    throw err;
  }
}

/**
 * The body of a GraphQL request refused before parsing: the service's error shape (`detail`,
 * `code`) and a GraphQL `errors` list carrying the same, for GraphQL clients.
 */
export function refusedBody(err: AppError): Record<string, unknown> {
  return { ...err.toBody(), errors: [{ message: err.message, extensions: { code: err.code, status: err.status, detail: err.detail } }] };
}

/**
 * No operation of the schema is meant for anonymous callers (logins go through POST /auth/token),
 * so a GraphQL HTTP request without a valid credential is answered 401 before its document is
 * parsed or validated: an anonymous caller learns nothing about the schema, introspection
 * included. GraphiQL's page (GET from a browser) is served before this runs. graphql-ws
 * connections authenticate when they open (src/graphql/websocket.ts), multipart requests in
 * src/graphql/multipart.ts.
 *
 * Validation and variable errors also lose graphql-js's "Did you mean ...?" hints, for everyone:
 * GraphiQL and code generators read the schema by introspection, not from error messages.
 */
export function useAnonymousGuard(runtime: Runtime): Plugin<Record<string, unknown>, { caller?: GraphQLCaller; origin?: RequestOrigin }> {
  return {
    async onRequestParse({ request, serverContext, endResponse }) {
      const caller = await graphqlCaller(runtime, request.headers.get("authorization"), serverContext.origin);
      serverContext.caller = caller;
      if (caller.principal) return;
      const err = caller.authError ?? errors.unauthenticated("Not authenticated");
      endResponse(
        new Response(JSON.stringify(refusedBody(err)), {
          status: err.status,
          headers: { ...err.headers, "Content-Type": "application/json; charset=utf-8" },
        }),
      );
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (result.some(hasHint)) setResult(result.map(withoutHint));
      };
    },
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (!("errors" in result) || !result.errors?.some(hasHint)) return;
          setResult({ ...result, errors: result.errors.map(withoutHint) });
        },
      };
    },
  };
}

const HINT = /\s*Did you mean .*\?$/s;

const hasHint = (e: Error) => HINT.test(e.message);

function withoutHint(e: Error): GraphQLError {
  const message = e.message.replace(HINT, "");
  if (!(e instanceof GraphQLError)) return new GraphQLError(message, { originalError: e });
  if (message === e.message) return e;
  return new GraphQLError(message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: e.extensions,
  });
}
