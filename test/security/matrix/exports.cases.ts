import { Readable } from "node:stream";
import { expectFor, type Actor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Saved exports belong to their creator: the owner's export is found by the owner and by
 * administrators, another user gets 404. Role 3 (owner, otherUser) holds exports:*; the wrong-scope
 * key only tags:read. Everyone's exports (`all=true`) are for administrators. Explore exports read
 * like search: any user with the index's read scope.
 */
/** The owner's export, made complete here: this matrix's service runs no worker to write it. */
async function ownersExport(w: MatrixWorld): Promise<number> {
  // Every actor's row makes exports, and none runs: the per-user limit would refuse the second.
  await w.app.http.post("/settings/runtime/exports", { token: w.admin.token, json: { max_active_per_user: 100 } });
  const res = await w.app.http.post("/exports/", { token: w.owner.token, json: { name: w.unique("matrix"), query: "type:domain" } });
  if (res.status !== 201) throw new Error(`matrix export: ${res.status} ${res.text}`);
  const { ctx } = w.app.booted;
  const key = `exports/${res.body.id}/matrix.json`;
  const size = await ctx.storage.put(key, Readable.from([Buffer.from("[]\n")]));
  await ctx.db.pool.query("UPDATE exports SET status = 'completed', storage_key = $2, file_size = $3, record_count = 0 WHERE id = $1", [res.body.id, key, size]);
  return res.body.id;
}

const ownerOrAdmin = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });

export const exportCases: MatrixCase[] = [
  { route: "GET /events/export", request: () => ({ path: "/events/export?query=*&format=ndjson" }), expect: expectFor.anyUser(200) },
  { route: "GET /attributes/export", request: () => ({ path: "/attributes/export?query=type:domain&format=csv" }), expect: expectFor.anyUser(200) },
  { route: "GET /exports/", request: () => ({ path: "/exports/" }), expect: expectFor.anyUser(200) },
  {
    route: "POST /exports/",
    request: async (_a, w) => {
      await w.app.http.post("/settings/runtime/exports", { token: w.admin.token, json: { max_active_per_user: 100 } });
      return { path: "/exports/", json: { name: w.unique("matrix"), query: "type:domain", format: "csv" } };
    },
    expect: expectFor.anyUser(201),
  },
  { route: "GET /exports/{export_id}", request: async (_a, w) => ({ path: `/exports/${await ownersExport(w)}` }), expect: ownerOrAdmin(200) },
  { route: "GET /exports/{export_id}/download", request: async (_a, w) => ({ path: `/exports/${await ownersExport(w)}/download` }), expect: ownerOrAdmin(200) },
  { route: "POST /exports/{export_id}/run", request: async (_a, w) => ({ path: `/exports/${await ownersExport(w)}/run` }), expect: ownerOrAdmin(200) },
  {
    route: "PATCH /exports/{export_id}/schedule",
    request: async (_a, w) => ({ path: `/exports/${await ownersExport(w)}/schedule`, json: { schedule: { type: "interval", every: 86_400 }, schedule_enabled: false } }),
    expect: ownerOrAdmin(200),
  },
  { route: "DELETE /exports/{export_id}", request: async (_a, w) => ({ path: `/exports/${await ownersExport(w)}` }), expect: ownerOrAdmin(204) },
];
