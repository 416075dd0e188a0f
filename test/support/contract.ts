import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { routeTable } from "../../rest-shim/index.ts";
import { buildOpenApi } from "../../rest-shim/openapi.ts";
import { VERSION } from "../../src/server.ts";

/**
 * Every REST answer the test suite receives is checked against the schema /openapi.json declares
 * for its operation and status (errors against the Error schema): a serializer that drifts from its
 * declared contract fails the test that saw it.
 */
const document = buildOpenApi(routeTable, VERSION);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));

interface Operation {
  method: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, { content?: Record<string, { schema: object }> } | { $ref: string }>;
}

const operations: Operation[] = Object.entries(document.paths)
  .flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      pattern: new RegExp("^" + path.replace(/\/+$/, "").replace(/\{[a-z_]+\}/g, "[^/]+") + "/?$"),
      params: (path.match(/\{/g) ?? []).length,
      responses: op.responses as Operation["responses"],
    })),
  )
  // A literal segment wins over a parameter (`/events/search` before `/events/{event_uuid}`), as in the router.
  .sort((a, b) => a.params - b.params);

const validators = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: object): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile({ ...schema, components: document.components });
    validators.set(key, v);
  }
  return v;
}

export function checkRestContract(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const path = url.split("?")[0];
  const op = operations.find((o) => o.method === method && o.pattern.test(path));
  if (!op || !contentType?.startsWith("application/json")) return;
  const declared = op.responses[String(status)] ?? (status >= 400 && status < 500 ? op.responses["4XX"] : undefined);
  let schema: object | undefined;
  const ownError = op.responses["4XX"];
  if (status >= 400) schema = (ownError && "content" in ownError ? ownError.content?.["application/json"]?.schema : undefined) ?? { $ref: "#/components/schemas/Error" };
  else if (declared && "content" in declared) schema = declared.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${path} answered ${status}, a status /openapi.json does not declare`);
  const validate = validatorFor(`${method} ${op.pattern.source} ${status >= 400 ? "error" : status}`, schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? " " + JSON.stringify(e.params) : ""}`);
    throw new Error(`${method} ${path} ${status}: the answer does not match its declared schema: ${problems.join("; ")}\n${JSON.stringify(body).slice(0, 600)}`);
  }
}
