import { graphqlSchema } from "../../../src/graphql/schema.ts";
import type { CaseContext, Expectation } from "./expectations.ts";
import type { Answer } from "./rest.ts";

/**
 * One row per GraphQL root field (`Query.x`, `Mutation.x`; subscriptions have rows of their own).
 * An answer counts as the status of its first error (extensions.status: 404 not_found, 403
 * forbidden or insufficient_scope, 422, ...) or 200 without errors, so the expectation classes
 * are the REST ones.
 */
export interface GraphqlCase extends Expectation {
  field: string;
  /** What the service checks before any lookup: without them, 403. */
  scopes: readonly string[];
  query: string;
  variables?(ctx: CaseContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Sends the file as a GraphQL multipart request, in the variable `file`. */
  upload?: { name: string; content: string };
}

export async function sendGraphql(c: GraphqlCase, ctx: CaseContext): Promise<Answer> {
  const variables = (await c.variables?.(ctx)) ?? {};
  const authorization = ctx.w.credential(ctx.actor);
  let status: number;
  let text: string;
  if (c.upload) {
    const form = new FormData();
    form.append("operations", JSON.stringify({ query: c.query, variables: { ...variables, file: null } }));
    form.append("map", JSON.stringify({ "0": ["variables.file"] }));
    form.append("0", new Blob([c.upload.content]), c.upload.name);
    const res = await fetch(`${ctx.w.app.url}/graphql`, { method: "POST", headers: { authorization }, body: form });
    status = res.status;
    text = await res.text();
  } else {
    const res = await ctx.w.app.http.request("POST", "/graphql", { authorization, json: { query: c.query, variables } });
    status = res.status;
    text = res.text;
  }
  let body: { data?: unknown; errors?: { extensions?: { status?: number } }[] } = {};
  try {
    body = JSON.parse(text);
  } catch {
    return { status: status === 200 ? 502 : status, text };
  }
  if (body.errors?.length) return { status: body.errors[0].extensions?.status ?? 500, text };
  return { status: status === 200 ? 200 : status, text };
}

/**
 * A selection of every field of a union or object type of the schema (one level: the payload
 * types hold scalars), so a leak check sees all a typed answer can carry.
 */
export function everyField(typeName: string): string {
  const type = graphqlSchema().getType(typeName);
  if (type && "getTypes" in type) return `{ __typename ${type.getTypes().map((t) => `... on ${t.name} { ${Object.keys(t.getFields()).join(" ")} }`).join(" ")} }`;
  if (type && "getFields" in type) return `{ ${Object.keys(type.getFields()).join(" ")} }`;
  throw new Error(`no type ${typeName}`);
}

/** Every root field of the schema, as `Type.field`. */
export function rootFields(): string[] {
  const schema = graphqlSchema();
  return [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
    type ? Object.keys(type.getFields()).map((f) => `${type.name}.${f}`) : [],
  );
}

/** Root fields without exactly one row (and rows naming no field). */
export function uncoveredFields(rows: string[]): string[] {
  const count = new Map<string, number>();
  for (const r of rows) count.set(r, (count.get(r) ?? 0) + 1);
  const fields = rootFields();
  return [
    ...fields.filter((f) => count.get(f) !== 1).map((f) => `${f} (${count.get(f) ?? 0} rows)`),
    ...[...count.keys()].filter((r) => !fields.includes(r)).map((r) => `${r} (not a root field)`),
  ];
}
