import { z } from "zod";
import { ERROR_CODES } from "../src/platform/errors.ts";
import type { RouteDef } from "./route.ts";

const toSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any", target: "draft-2020-12" });

const errorBody = {
  type: "object",
  required: ["detail", "code"],
  properties: {
    detail: { oneOf: [{ type: "string" }, { type: "array", items: { type: "object" } }] },
    code: { type: "string", enum: Object.keys(ERROR_CODES) },
  },
};

/** OpenAPI 3.1 document generated from the REST route table (served at /openapi.json). */
export function buildOpenApi(routes: RouteDef[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [["path", r.params], ["query", r.query]] as const) {
      if (!schema) continue;
      const json = toSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(json.properties ?? {})) {
        parameters.push({ name, in: where, required: where === "path" || (json.required ?? []).includes(name), schema: prop });
      }
    }
    const responses: Record<string, unknown> = {
      [String(r.status)]: r.status === 204
        ? { description: "No content" }
        : { description: "Success", content: { "application/json": { schema: r.response ? toSchema(r.response) : {} } } },
      "4XX": { description: "Client error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    };
    paths[r.path] ??= {};
    paths[r.path][r.method.toLowerCase()] = {
      summary: r.summary,
      tags: [r.tag],
      ...(r.scopes === null ? { security: [] } : { "x-required-scopes": r.scopes }),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: {
                [r.bodyType === "form" ? "application/x-www-form-urlencoded" : "application/json"]: { schema: toSchema(r.body) },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Threat-Intelligence Workbench REST API", version },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "OAuth2 access token (JWT) or API key" },
        oauth2: { type: "oauth2", flows: { password: { tokenUrl: "/auth/token", scopes: {} } } },
      },
      schemas: { Error: errorBody },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
