import { z } from "zod";
import { SCOPE_CATALOGUE } from "../src/auth/scopes.ts";
import { ERROR_CODES } from "../src/platform/errors.ts";
import { MEDIA_TYPES, type RouteDef } from "./route.ts";
import { ValidationIssueSchema, schemaRegistry } from "./contract.ts";

type JsonSchema = Record<string, unknown>;

const COMPONENTS = "#/components/schemas/";

/**
 * A zod schema as an OpenAPI 3.1 schema: named schemas (`named()` in contract.ts) become
 * components, referenced from every operation, so a generated client gets one model per resource.
 */
class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      target: "draft-2020-12",
      unrepresentable: "any",
      metadata: schemaRegistry,
      reused: "inline",
      cycles: "ref",
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const { $defs, $schema: _dialect, ...rest } = json;
    for (const [name, def] of Object.entries($defs ?? {})) this.addComponent(name, def);
    // A named schema comes back as a reference to its own definition.
    return rest;
  }

  private addComponent(name: string, def: JsonSchema): void {
    const { id: _id, ...body } = def;
    const known = this.components[name];
    if (known && JSON.stringify(known) !== JSON.stringify(body)) {
      throw new Error(`Two different schemas are named ${name} (one is probably an input schema)`);
    }
    this.components[name] = body;
  }

  /** `#/$defs/X` (zod's local references) to component references, in place. */
  static rewriteRefs(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => SchemaConverter.rewriteRefs(v));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) =>
          k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? [k, COMPONENTS + v.slice(8)] : [k, SchemaConverter.rewriteRefs(v)],
        ),
      );
    }
    return value;
  }
}

function errorBody(convert: SchemaConverter): JsonSchema {
  return {
    type: "object",
    description: "Every error: a message (or, for 422, the list of invalid fields) and a stable code",
    required: ["detail", "code"],
    properties: {
      detail: { oneOf: [{ type: "string" }, { type: "array", items: convert.convert(ValidationIssueSchema, "output") }] },
      code: { type: "string", enum: Object.keys(ERROR_CODES) },
    },
  };
}


function successResponse(r: RouteDef, convert: SchemaConverter): Record<string, unknown> {
  if (r.status === 204 || r.emptyBody) return { description: "No content" };
  if (r.download) {
    return {
      description: "The file, streamed",
      // A JSON file is still JSON on the wire (clients parse it); other formats are text to save.
      content: Object.fromEntries(
        r.download.mediaTypes.map((t) => [t, { schema: /[/+]json$/.test(t) ? { description: "The file's JSON document" } : { type: "string", contentMediaType: t } }]),
      ),
    };
  }
  if (!r.response) return { description: "Success", content: { "application/json": { schema: {} } } };
  return { description: "Success", content: { "application/json": { schema: convert.convert(r.response, "output") } } };
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
  [key: string]: unknown;
}

/** OpenAPI 3.1 document generated from the REST route table (served at /openapi.json). */
export function buildOpenApi(routes: RouteDef[], version: string, publicUrl?: string): OpenApiDocument {
  const convert = new SchemaConverter();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [["path", r.params], ["query", r.query]] as const) {
      if (!schema) continue;
      const json = convert.convert(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, prop] of Object.entries(json.properties ?? {})) {
        const { description, ...propSchema } = prop;
        parameters.push({
          name,
          in: where,
          required: where === "path" || (json.required ?? []).includes(name),
          ...(typeof description === "string" ? { description } : {}),
          schema: propSchema,
        });
      }
    }
    const success = successResponse(r, convert);
    const responses: Record<string, unknown> = Object.fromEntries([r.status, ...(r.otherStatuses ?? [])].map((s) => [String(s), success]));
    responses["4XX"] = r.errorResponse
      ? { description: "Client error", content: { "application/json": { schema: convert.convert(r.errorResponse, "output") } } }
      : { $ref: "#/components/responses/Error" };
    const bodySchema = r.bodyType === "multipart" ? r.multipartBody : r.body;
    paths[r.path] ??= {};
    paths[r.path][r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      ...(r.scopes === null
        ? { security: [] }
        : { "x-required-scopes": r.scopes, security: [{ bearer: [] }, { apiKey: [] }, { oauth2: r.scopes }] }),
      ...(parameters.length ? { parameters } : {}),
      ...(bodySchema
        ? { requestBody: { required: true, content: { [MEDIA_TYPES[r.bodyType ?? "json"]]: { schema: convert.convert(bodySchema, "input") } } } }
        : {}),
      responses,
    };
  }
  return SchemaConverter.rewriteRefs({
    openapi: "3.1.0",
    info: {
      title: "Threat-Intelligence Workbench REST API",
      version,
      description:
        "The REST layer of the workbench (the same services as /graphql). Authenticate with an OAuth2 access token from POST /auth/token " +
        "(`Authorization: Bearer <token>`) or an API key (`Authorization: Bearer <key>` or the raw `Authorization: <key>`).",
    },
    servers: publicUrl
      ? [{ url: publicUrl, description: "This instance" }]
      : [{ url: "{publicUrl}", description: "An instance (its PUBLIC_URL)", variables: { publicUrl: { default: "http://127.0.0.1:8000" } } }],
    tags: [...new Set(routes.map((r) => r.tag))].sort().map((name) => ({ name, description: `Operations on ${name}` })),
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An OAuth2 access token (JWT) from /auth/token, or an API key" },
        apiKey: { type: "apiKey", in: "header", name: "Authorization", description: "An API key as the whole header value, without `Bearer ` (spec 5.2)" },
        oauth2: {
          type: "oauth2",
          description: "The password grant; the token carries the scopes asked for, within the user's role",
          flows: { password: { tokenUrl: "/auth/token", refreshUrl: "/auth/refresh", scopes: { ...SCOPE_CATALOGUE } } },
        },
      },
      responses: { Error: { description: "Client error", content: { "application/json": { schema: { $ref: COMPONENTS + "Error" } } } } },
      schemas: { Error: errorBody(convert), ...convert.components },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
  }) as OpenApiDocument;
}
