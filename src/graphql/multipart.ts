import type { FastifyReply, FastifyRequest } from "fastify";
import { processRequest, type GraphQLOperation } from "graphql-upload-minimal";
import type { YogaServerInstance } from "graphql-yoga";
import { errors } from "../platform/errors.ts";
import { MAX_UPLOAD_BYTES } from "../modules/feeds/index.ts";
import type { GraphQLContext } from "./builder.ts";
import type { ServerContext } from "./yoga.ts";
import { refusedBody } from "./anonymous-guard.ts";

/**
 * GraphQL multipart requests (file uploads) bypass Yoga's own multipart parsing, which holds whole
 * files in memory: graphql-upload-minimal parses the request and hands each file to its resolver as
 * a stream, and the operation then runs through Yoga's envelop (the same parse, validation,
 * context, execution and error masking as every other operation). One file, one operation.
 * The caller is authenticated first: without a valid credential nothing is read, parsed or
 * validated (401, as src/graphql/anonymous-guard.ts answers other GraphQL requests).
 */
export async function executeMultipart(yoga: YogaServerInstance<ServerContext, GraphQLContext>, req: FastifyRequest, reply: FastifyReply, origin: ServerContext["origin"]): Promise<unknown> {
  const headers = new Headers();
  const auth = req.headers.authorization;
  if (typeof auth === "string") headers.set("authorization", auth);
  const { parse, validate, contextFactory, execute, schema } = yoga.getEnveloped({ request: new Request("http://localhost/graphql", { method: "POST", headers }), origin } as ServerContext);
  const contextValue = await contextFactory();
  if (!contextValue.principal) {
    const err = contextValue.authError ?? errors.unauthenticated("Not authenticated");
    reply.status(err.status).headers(err.headers);
    return refusedBody(err);
  }
  let operation: GraphQLOperation | GraphQLOperation[];
  try {
    // One byte over our limit, so the resolver's own check (413) is the one that fires.
    operation = await processRequest(req.raw, reply.raw, { maxFileSize: MAX_UPLOAD_BYTES + 1, maxFiles: 1, maxFieldSize: 1024 * 1024 });
  } catch (err) {
    const status = (err as { status?: number }).status;
    throw status === 413 ? errors.payloadTooLarge((err as Error).message) : errors.badRequest(`Invalid multipart GraphQL request: ${(err as Error).message}`);
  }
  if (Array.isArray(operation)) throw errors.badRequest("Batched operations are not accepted with file uploads");
  let document;
  try {
    document = parse(operation.query);
  } catch (err) {
    return { errors: [{ message: (err as Error).message }] };
  }
  const validationErrors = validate(schema, document);
  if (validationErrors.length) return { errors: validationErrors.map((e: { message: string }) => ({ message: e.message })) };
  return execute({ schema, document, contextValue, variableValues: operation.variables as Record<string, unknown> | undefined, operationName: operation.operationName ?? undefined });
}
