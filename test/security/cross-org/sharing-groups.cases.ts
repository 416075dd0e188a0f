import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * Sharing groups: A's group (A alone a member) is invisible to B (404, or 403 without the scope),
 * and B can neither change it, join it nor create a group for A. Validators use throwaway groups
 * of A for the destructive requests.
 */
export const sharingGroupsRest: RestCase[] = [
  { route: "GET /sharing_groups/", request: () => ({ path: "/sharing_groups/" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharingGroup.name] },
  { route: "GET /sharing_groups/{sharing_group_id}", request: ({ w }) => ({ path: `/sharing_groups/${w.a.sharingGroup.id}` }), b: "hidden", validator: { status: 200 } },
  // A group for A's organisation: only the site administrator may name another owner.
  { route: "POST /sharing_groups/", request: ({ w }) => ({ path: "/sharing_groups/", json: { name: w.unique("sg for A"), org_id: w.a.org.id } }), b: "denied", validator: { status: 201 } },
  {
    route: "PATCH /sharing_groups/{sharing_group_id}",
    request: async ({ w, validating }) => ({ path: `/sharing_groups/${validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id}`, json: { description: "taken over", roaming: true } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    // B adds its own organisation to A's group: the way in B must not have.
    route: "POST /sharing_groups/{sharing_group_id}/organisations",
    request: async ({ w, validating }) => ({ path: `/sharing_groups/${validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id}/organisations`, json: { org_id: w.orgB.id, extend: true } }),
    b: "hidden", validator: { status: 201 },
  },
  {
    route: "DELETE /sharing_groups/{sharing_group_id}/organisations/{org_id}",
    request: async ({ w, validating }) => {
      if (!validating) return { path: `/sharing_groups/${w.a.sharingGroup.id}/organisations/${w.a.org.id}` };
      const id = await w.throwaway.sharingGroup();
      await w.call("site", "POST", `/sharing_groups/${id}/organisations`, { org_id: w.orgB.id });
      return { path: `/sharing_groups/${id}/organisations/${w.orgB.id}` };
    },
    b: "hidden", validator: { status: 204 },
  },
  {
    route: "DELETE /sharing_groups/{sharing_group_id}",
    request: async ({ w, validating }) => ({ path: `/sharing_groups/${validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id}` }),
    b: "hidden", validator: { status: 204 },
  },
];

export const sharingGroupsGraphql: GraphqlCase[] = [
  {
    field: "Query.sharingGroups", scopes: ["sharing_groups:read"], query: "{ sharingGroups(size: 100) { items { id name description members { orgId } } } }",
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharingGroup.name],
  },
  { field: "Query.sharingGroup", scopes: ["sharing_groups:read"], query: "query($id: Int!) { sharingGroup(id: $id) { id name } }", variables: ({ w }) => ({ id: w.a.sharingGroup.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.createSharingGroup", scopes: ["sharing_groups:create"],
    query: "mutation($i: SharingGroupInput!) { createSharingGroup(input: $i) { id } }",
    variables: ({ w }) => ({ i: { name: w.unique("sg for A"), orgId: w.a.org.id } }),
    b: "denied", validator: { status: 200 },
  },
  {
    field: "Mutation.updateSharingGroup", scopes: ["sharing_groups:update"],
    query: "mutation($id: Int!) { updateSharingGroup(id: $id, input: { description: \"taken over\", roaming: true }) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.addSharingGroupOrganisation", scopes: ["sharing_groups:update"],
    query: "mutation($id: Int!, $org: Int!) { addSharingGroupOrganisation(id: $id, input: { orgId: $org, extend: true }) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id, org: w.orgB.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.removeSharingGroupOrganisation", scopes: ["sharing_groups:update"],
    query: "mutation($id: Int!, $org: Int!) { removeSharingGroupOrganisation(id: $id, orgId: $org) }",
    variables: async ({ w, validating }) => {
      if (!validating) return { id: w.a.sharingGroup.id, org: w.a.org.id };
      const id = await w.throwaway.sharingGroup();
      await w.call("site", "POST", `/sharing_groups/${id}/organisations`, { org_id: w.orgB.id });
      return { id, org: w.orgB.id };
    },
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.deleteSharingGroup", scopes: ["sharing_groups:delete"],
    query: "mutation($id: Int!) { deleteSharingGroup(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.sharingGroup() : w.a.sharingGroup.id }),
    b: "hidden", validator: { status: 200 },
  },
];
