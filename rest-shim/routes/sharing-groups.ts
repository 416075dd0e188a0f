import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { memberContract, sharingGroupCreateContract, sharingGroupPatchContract, WITH_MEMBERS } from "../../src/modules/sharing-groups/index.ts";
import { idParams, intId, skipLimitQuery } from "../schemas.ts";
import { SharingGroupSchema, sharingGroupOut } from "../serializers/sharing-groups.ts";

const memberWire = wireContract(memberContract);
const createWire = wireContract(sharingGroupCreateContract, { names: { members: "sharing_group_orgs" }, codecs: { members: z.array(memberWire.schema).max(1000).optional() } });
const patchWire = wireContract(sharingGroupPatchContract);
const groupId = idParams("sharing_group_id");
const memberParams = z.object({ sharing_group_id: intId, org_id: intId }).strict();

export const sharingGroupRoutes = [
  defineRoute({
    method: "GET", path: "/sharing_groups/", operationId: "listSharingGroups", summary: "List the sharing groups your organisation owns or belongs to (administrators: all)", tag: "sharing_groups",
    scopes: ["sharing_groups:read"], query: skipLimitQuery, status: 200, response: z.array(SharingGroupSchema),
    handler: async ({ principal, query, services }) => (await services.sharingGroups.list(principal, query, WITH_MEMBERS)).map(sharingGroupOut),
  }),
  defineRoute({
    method: "GET", path: "/sharing_groups/{sharing_group_id}", operationId: "getSharingGroup", summary: "Get a sharing group with its members", tag: "sharing_groups",
    scopes: ["sharing_groups:read"], params: groupId, status: 200, response: SharingGroupSchema,
    handler: async ({ principal, params, services }) => sharingGroupOut(await services.sharingGroups.get(principal, params.sharing_group_id, WITH_MEMBERS)),
  }),
  defineRoute({
    method: "POST", path: "/sharing_groups/", operationId: "createSharingGroup", summary: "Create a sharing group owned by your organisation, with its members", tag: "sharing_groups",
    scopes: ["sharing_groups:create"], status: 201, response: SharingGroupSchema, wireNames: { members: "sharing_group_orgs" },
    body: createWire.object,
    handler: async ({ principal, body, services }) => sharingGroupOut(await services.sharingGroups.create(principal, createWire.fromWire(body), WITH_MEMBERS)),
  }),
  defineRoute({
    method: "PATCH", path: "/sharing_groups/{sharing_group_id}", operationId: "updateSharingGroup", summary: "Change a sharing group's name, releasability, description, active or roaming flag (the owner)", tag: "sharing_groups",
    scopes: ["sharing_groups:update"], params: groupId, status: 200, response: SharingGroupSchema,
    body: patchWire.object,
    handler: async ({ principal, params, body, services }) => sharingGroupOut(await services.sharingGroups.update(principal, params.sharing_group_id, patchWire.fromWire(body), WITH_MEMBERS)),
  }),
  defineRoute({
    method: "POST", path: "/sharing_groups/{sharing_group_id}/organisations", operationId: "addSharingGroupOrganisation", summary: "Add an organisation to a sharing group, or change its extend flag (the owner, or a member allowed to extend)", tag: "sharing_groups",
    scopes: ["sharing_groups:update"], params: groupId, status: 201, response: SharingGroupSchema,
    body: memberWire.object,
    handler: async ({ principal, params, body, services }) => sharingGroupOut(await services.sharingGroups.addMember(principal, params.sharing_group_id, memberWire.fromWire(body), WITH_MEMBERS)),
  }),
  defineRoute({
    method: "DELETE", path: "/sharing_groups/{sharing_group_id}/organisations/{org_id}", operationId: "removeSharingGroupOrganisation", summary: "Remove a member organisation (the owner)", tag: "sharing_groups",
    scopes: ["sharing_groups:update"], params: memberParams, status: 204,
    handler: ({ principal, params, services }) => services.sharingGroups.removeMember(principal, params.sharing_group_id, params.org_id),
  }),
  defineRoute({
    method: "DELETE", path: "/sharing_groups/{sharing_group_id}", operationId: "deleteSharingGroup", summary: "Delete a sharing group no data uses (the owner)", tag: "sharing_groups",
    scopes: ["sharing_groups:delete"], params: groupId, status: 204,
    handler: ({ principal, params, services }) => services.sharingGroups.delete(principal, params.sharing_group_id),
  }),
];
