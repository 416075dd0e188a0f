import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Sharing groups. The matrix's users (role 3) belong to the administrator's organisation, which owns
 * the groups made here: they read them (sharing_groups:read) but only an organisation administrator
 * (role 2) or the site administrator changes them; role 3 holds no sharing_groups write scope.
 */
async function group(w: MatrixWorld): Promise<number> {
  const res = await w.app.http.post("/sharing_groups/", { token: w.admin.token, json: { name: w.unique("sg") } });
  if (res.status !== 201) throw new Error(`sharing group: ${res.text}`);
  return res.body.id;
}

async function member(w: MatrixWorld): Promise<{ id: number; orgId: number }> {
  const org = await w.app.http.post("/organisations/", { token: w.admin.token, json: { name: w.unique("sg-member") } });
  const id = await group(w);
  const added = await w.app.http.post(`/sharing_groups/${id}/organisations`, { token: w.admin.token, json: { org_id: org.body.id } });
  if (added.status !== 201) throw new Error(`member: ${added.text}`);
  return { id, orgId: org.body.id };
}

export const sharingGroupCases: MatrixCase[] = [
  { route: "GET /sharing_groups/", request: () => ({ path: "/sharing_groups/" }), expect: expectFor.anyUser(200) },
  { route: "GET /sharing_groups/{sharing_group_id}", request: async (_a, w) => ({ path: `/sharing_groups/${await group(w)}` }), expect: expectFor.anyUser(200) },
  { route: "POST /sharing_groups/", request: (_a, w) => ({ path: "/sharing_groups/", json: { name: w.unique("sg") } }), expect: expectFor.adminOnly(201) },
  {
    route: "PATCH /sharing_groups/{sharing_group_id}",
    request: async (_a, w) => ({ path: `/sharing_groups/${await group(w)}`, json: { description: "changed" } }),
    expect: expectFor.adminOnly(200),
  },
  {
    route: "POST /sharing_groups/{sharing_group_id}/organisations",
    request: async (_a, w) => {
      const org = await w.app.http.post("/organisations/", { token: w.admin.token, json: { name: w.unique("sg-org") } });
      return { path: `/sharing_groups/${await group(w)}/organisations`, json: { org_id: org.body.id, extend: true } };
    },
    expect: expectFor.adminOnly(201),
  },
  {
    route: "DELETE /sharing_groups/{sharing_group_id}/organisations/{org_id}",
    request: async (_a, w) => {
      const m = await member(w);
      return { path: `/sharing_groups/${m.id}/organisations/${m.orgId}` };
    },
    expect: expectFor.adminOnly(204),
  },
  { route: "DELETE /sharing_groups/{sharing_group_id}", request: async (_a, w) => ({ path: `/sharing_groups/${await group(w)}` }), expect: expectFor.adminOnly(204) },
];
