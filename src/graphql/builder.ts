import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import { GraphQLUpload, type FileUpload } from "graphql-upload-minimal";
import type { Principal } from "../auth/principal.ts";
import type { AppError } from "../platform/errors.ts";
import type { Services } from "../services.ts";
import type { PrismaClient } from "../platform/db/index.ts";
import type PrismaTypes from "../generated/pothos-prisma-types.ts";
import { getDatamodel } from "../generated/pothos-prisma-types.ts";
import type { PgPubSub } from "../platform/pubsub.ts";

export interface GraphQLContext {
  principal: Principal | null;
  /** Set when the presented credential was rejected: every resolver that needs a caller throws it. */
  authError: AppError | null;
  services: Services;
  pubsub: PgPubSub;
  /** For @pothos/plugin-prisma's relation loading; services still decide what a caller reads. */
  prisma: PrismaClient;
}

/** The caller for a resolver: rethrows a rejected credential instead of treating it as anonymous. */
export function caller(ctx: GraphQLContext): Principal | null {
  if (ctx.authError) throw ctx.authError;
  return ctx.principal;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    /** A file of a GraphQL multipart request, streamed (src/graphql/multipart.ts). */
    Upload: { Input: Promise<FileUpload>; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  plugins: [PrismaPlugin],
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    // A resolver that forgets to spread the plugin's query would load relations one parent at a time.
    onUnusedQuery: "error",
  },
});

builder.addScalarType(
  "DateTime",
  new GraphQLScalarType<Date, string>({
    name: "DateTime",
    description: "ISO 8601 timestamp in UTC",
    serialize: (v) => (v as Date).toISOString(),
    parseValue: (v) => {
      const d = new Date(String(v));
      if (Number.isNaN(d.getTime())) throw new TypeError("DateTime must be an ISO 8601 timestamp");
      return d;
    },
  }),
);

function literalToJson(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw new TypeError("JSON literals cannot contain variables");
  }
}

builder.addScalarType(
  "JSON",
  new GraphQLScalarType({
    name: "JSON",
    description: "Arbitrary JSON value: used only where the shape is free-form or another format's own (each field says why)",
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: literalToJson,
  }),
);

builder.queryType({ description: "Reads. Each field says which REST route it mirrors when there is one" });
builder.mutationType({ description: "Changes. Each field says which REST route it mirrors when there is one" });
builder.subscriptionType({ description: "Live updates over WebSocket (graphql-ws) at /graphql" });

builder.addScalarType("Upload", GraphQLUpload);
