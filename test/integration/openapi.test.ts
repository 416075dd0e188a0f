import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeTable } from "../../rest-shim/index.ts";
import { openApiFileContents } from "../../rest-shim/openapi-file.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let app: TestApp;
let doc: any;

beforeAll(async () => {
  app = await startTestApp("openapi", { PUBLIC_URL: "https://cti.example.test/" });
  const res = await app.http.get("/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  doc = res.body;
});
afterAll(() => app?.close());

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

describe("/openapi.json", () => {
  it("is served without authentication", async () => {
    expect((await app.http.get("/openapi.json")).status).toBe(200);
  });

  it("has the OpenAPI 3.1 top-level shape", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe("string");
    expect(doc.info.title.length).toBeGreaterThan(0);
    expect(typeof doc.info.version).toBe("string");
    expect(doc.paths && typeof doc.paths).toBe("object");
    expect(doc.components.securitySchemes).toBeDefined();
    for (const [name, scheme] of Object.entries<any>(doc.components.securitySchemes)) {
      expect(["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"], name).toContain(scheme.type);
    }
    for (const req of doc.security ?? []) {
      for (const name of Object.keys(req)) expect(doc.components.securitySchemes).toHaveProperty([name]);
    }
  });

  it("has well-formed paths and operations", () => {
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      expect(p.startsWith("/"), p).toBe(true);
      const templated = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(item)) {
        expect(METHODS, `${p} ${method}`).toContain(method);
        expect(Object.keys(op.responses ?? {}).length, `${p} ${method} responses`).toBeGreaterThan(0);
        for (const code of Object.keys(op.responses)) expect(code, `${p} ${method}`).toMatch(/^([1-5]XX|[1-5]\d\d|default)$/);
        const pathParams = (op.parameters ?? []).filter((x: any) => x.in === "path");
        // Every templated segment is declared as a required path parameter, and nothing more.
        expect(pathParams.map((x: any) => x.name).sort(), `${p} ${method} path params`).toEqual([...templated].sort());
        for (const param of op.parameters ?? []) {
          expect(["path", "query", "header", "cookie"]).toContain(param.in);
          expect(typeof param.name).toBe("string");
          if (param.in === "path") expect(param.required).toBe(true);
        }
        if (op.requestBody) {
          expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
        }
      }
    }
    const refs = JSON.stringify(doc).match(/"\$ref":"([^"]+)"/g) ?? [];
    for (const ref of refs) {
      const target = ref.slice(8, -1);
      expect(target.startsWith("#/components/"), target).toBe(true);
      const resolved = target.slice(2).split("/").reduce((o: any, k) => o?.[k], doc);
      expect(resolved, target).toBeDefined();
    }
  });

  it("contains every route of the route table, with x-required-scopes or security: []", () => {
    expect(routeTable.length).toBeGreaterThan(10);
    for (const r of routeTable) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      const open = Array.isArray(op.security) && op.security.length === 0;
      const scoped = Array.isArray(op["x-required-scopes"]);
      expect(open || scoped, `${r.method} ${r.path}`).toBe(true);
      if (r.scopes === null) expect(open, `${r.method} ${r.path} is anonymous`).toBe(true);
      else expect(op["x-required-scopes"], `${r.method} ${r.path}`).toEqual(r.scopes);
      expect(Object.keys(op.responses)).toContain(String(r.status));
    }
  });

  it("documents no operation that is not in the route table", () => {
    const table = new Set(routeTable.map((r) => `${r.method.toLowerCase()} ${r.path}`));
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item)) expect(table.has(`${method} ${p}`), `${method} ${p}`).toBe(true);
    }
  });

  it("declares request bodies for routes that take one, with the right media type", () => {
    for (const r of routeTable.filter((x) => x.body)) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      const type = r.bodyType === "form" ? "application/x-www-form-urlencoded" : "application/json";
      expect(op.requestBody?.content?.[type], `${r.method} ${r.path}`).toBeDefined();
    }
    const token = doc.paths["/auth/token"].post;
    expect(Object.keys(token.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
  });

  it("matches the routes the server actually answers", async () => {
    // Every documented operation exists: anonymous calls get 401/4xx, never the 404 of an unknown route.
    for (const r of routeTable) {
      const url = r.path.replace(/\{[a-z_]+\}/g, "1");
      const res = await app.http.request(r.method, url, r.body ? { json: {} } : {});
      expect(res.status, `${r.method} ${url}`).not.toBe(405);
      // The MISP-compatible API answers a missing credential as MISP does: 403.
      if (r.scopes !== null) expect(res.status, `${r.method} ${url}`).toBe(r.errorResponse ? 403 : 401);
    }
  });

  it("gives every operation a unique camelCase operationId, a tag and a typed success answer", () => {
    const ids = new Map<string, string>();
    const untyped: string[] = [];
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${p}`;
        expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
        expect(ids.get(op.operationId), `${where} reuses ${op.operationId}`).toBeUndefined();
        ids.set(op.operationId, where);
        expect(doc.tags.map((t: any) => t.name), where).toContain(op.tags[0]);
        for (const [code, answer] of Object.entries<any>(op.responses)) {
          if (!/^2/.test(code) || code === "204") continue;
          for (const media of Object.values<any>(answer.content ?? {})) {
            if (Object.keys(media.schema ?? {}).length === 0) untyped.push(`${where} ${code}`);
          }
          const emptyBody = routeTable.find((r) => r.path === p && r.method.toLowerCase() === method)?.emptyBody;
          if (!emptyBody) expect(Object.keys(answer.content ?? {}).length, `${where} ${code}`).toBeGreaterThan(0);
        }
      }
    }
    expect(untyped, "operations whose success answer has the empty schema").toEqual([]);
  });

  it("describes the upload as multipart/form-data with its file part", () => {
    const upload = doc.paths["/feeds/upload"].post.requestBody.content["multipart/form-data"].schema;
    expect(upload.properties.file).toMatchObject({ type: "string", format: "binary" });
    expect(upload.required).toContain("file");
  });

  it("names this instance as its server and describes both credential forms and the password flow", () => {
    expect(doc.servers).toEqual([{ url: "https://cti.example.test", description: "This instance" }]);
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(schemes.oauth2.flows.password.tokenUrl).toBe("/auth/token");
    expect(Object.keys(schemes.oauth2.flows.password.scopes)).toContain("events:read");
    const get = doc.paths["/events/{event_uuid}"].get;
    expect(get.security).toEqual([{ bearer: [] }, { apiKey: [] }, { oauth2: ["events:read"] }]);
    expect(get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/EventDetail" });
  });

  it("is checked in as docs/openapi.json (run `npm run openapi:print` after changing a route)", () => {
    const onDisk = fs.readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8");
    if (onDisk !== openApiFileContents()) expect.fail("docs/openapi.json is stale: run `npm run openapi:print` and commit it");
    const { servers: _a, ...served } = doc;
    const { servers: _b, ...file } = JSON.parse(onDisk);
    expect(file).toEqual(served);
  });

  it("shows an example of each main resource, valid against its own schema", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const addFormats = (await import("ajv-formats")).default as unknown as (ajv: InstanceType<typeof Ajv2020>) => unknown;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const withExamples = Object.entries<any>(doc.components.schemas).filter(([, schema]) => Array.isArray(schema.examples));
    expect(withExamples.map(([name]) => name)).toEqual(expect.arrayContaining(["Event", "Attribute", "Tag", "EventTag", "Hunt"]));
    for (const [name, schema] of withExamples) {
      const validate = ajv.compile({ ...schema, components: doc.components });
      for (const example of schema.examples) expect(validate(example) ? null : validate.errors, name).toBeNull();
    }
  });
});
