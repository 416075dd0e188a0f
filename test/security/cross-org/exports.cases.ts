import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import type { Actor } from "./world.ts";

/**
 * Saved exports: an export is its owner's (other users get 404; administrators see all). A's user
 * has one (a json of A's private attribute); B's own export over A's shared event holds none of A's
 * hidden attributes. Destructive validations use throwaway exports of A's.
 */
const completed = async ({ w }: CaseContext, owner: Actor, id: number): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    const e = await w.call(owner, "GET", `/exports/${id}`);
    if (e.status === "completed") return;
    if (e.status === "failed") throw new Error(`export ${id} failed: ${e.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`export ${id} did not complete`);
};

/** The caller's own export of A's shared event (A's user's when validating), completed. */
async function ownExportOfShared(ctx: CaseContext): Promise<number> {
  const { w, actor, validating } = ctx;
  if (!validating && !w.holds(actor, ["exports:create", "exports:read", "attributes:read"])) return w.a.export.id;
  const owner: Actor = validating ? "aUser" : actor;
  const id = (await w.call(owner, "POST", "/exports/", { name: w.unique("export of A's shared event"), query: `event_uuid:${w.a.sharedEvent.uuid}`, format: "json" })).id;
  await completed(ctx, owner, id);
  return id;
}

export const exportsRest: RestCase[] = [
  // Another user's exports are for administrators only: 403, whoever they belong to.
  { route: "GET /exports/", request: () => ({ path: "/exports/?size=100&all=true" }), b: "denied", validator: { status: 200 }, validatorFinds: (w) => [w.a.export.name] },
  { route: "POST /exports/", request: ({ w }) => ({ path: "/exports/", json: { name: w.unique("B export"), query: "type:domain" } }), b: "own", ok: 201, validator: { status: 201 } },
  { route: "GET /exports/{export_id}", request: ({ w }) => ({ path: `/exports/${w.a.export.id}` }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.export.name] },
  { route: "GET /exports/{export_id}/download", request: ({ w }) => ({ path: `/exports/${w.a.export.id}/download` }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.value] },
  {
    route: "POST /exports/{export_id}/run",
    request: async ({ w, validating }) => ({ path: `/exports/${validating ? await w.throwaway.export() : w.a.export.id}/run` }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "PATCH /exports/{export_id}/schedule",
    request: async ({ w, validating }) => ({ path: `/exports/${validating ? await w.throwaway.export() : w.a.export.id}/schedule`, json: { schedule: { type: "interval", every: 86_400 }, schedule_enabled: false } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "DELETE /exports/{export_id}",
    request: async ({ w, validating }) => ({ path: `/exports/${validating ? await w.throwaway.export() : w.a.export.id}` }),
    b: "hidden", validator: { status: 204 },
  },
];

export const exportsGraphql: GraphqlCase[] = [
  { field: "Query.exports", scopes: ["exports:read"], query: "{ exports(size: 100, all: true) { items { id name } } }", b: "denied", validator: { status: 200 }, validatorFinds: (w) => [w.a.export.name] },
  { field: "Query.export", scopes: ["exports:read"], query: "query($id: Int!) { export(id: $id) { id name downloadUrl } }", variables: ({ w }) => ({ id: w.a.export.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.createExport", scopes: ["exports:create"],
    query: "mutation($n: String!) { createExport(input: { name: $n, query: \"type:domain\" }) { id } }",
    variables: ({ w }) => ({ n: w.unique("B export") }), b: "own", validator: { status: 200 },
  },
  {
    field: "Mutation.runExport", scopes: ["exports:create"],
    query: "mutation($id: Int!) { runExport(id: $id) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.export() : w.a.export.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.setExportSchedule", scopes: ["exports:create"],
    query: "mutation($id: Int!) { setExportSchedule(id: $id, schedule: null) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.export() : w.a.export.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.deleteExport", scopes: ["exports:delete"],
    query: "mutation($id: Int!) { deleteExport(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.export() : w.a.export.id }),
    b: "hidden", validator: { status: 200 },
  },
];

/** Further path: the caller's own export of A's shared event leaves out A's hidden attributes. */
export const exportsReadPaths: RestCase[] = [
  {
    route: "GET /exports/{export_id}/download",
    request: async (ctx) => ({ path: `/exports/${await ownExportOfShared(ctx)}/download` }),
    b: "filtered", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid],
  },
];
