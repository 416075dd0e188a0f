import { z } from "zod";
import { SHARING_GROUP_DOC as D, type SharingGroupWithMembers } from "../../src/modules/sharing-groups/index.ts";
import { named } from "../contract.ts";

const OrgRefSchema = z.object({ id: z.int().describe(D.memberOrgId), uuid: z.string().describe(D.memberOrgUuid), name: z.string().describe(D.memberOrgName) });

export const SharingGroupSchema = named(
  "SharingGroup",
  z.object({
    id: z.int().describe(D.id),
    uuid: z.string().describe(D.uuid),
    name: z.string().describe(D.name),
    releasability: z.string().describe(D.releasability),
    description: z.string().describe(D.description),
    org_id: z.int().describe(D.orgId),
    organisation: OrgRefSchema.describe("The owning organisation"),
    active: z.boolean().describe(D.active),
    local: z.boolean().describe(D.local),
    roaming: z.boolean().describe(D.roaming),
    sharing_group_orgs: z.array(z.object({ org_id: z.int().describe(D.memberOrgId), extend: z.boolean().describe(D.extend), organisation: OrgRefSchema })).describe(D.members),
    created_at: z.iso.datetime().describe(D.createdAt),
    updated_at: z.iso.datetime().describe(D.updatedAt),
  }),
  "A sharing group: data of distribution 4 naming it is readable by its organisations",
);

export function sharingGroupOut(g: SharingGroupWithMembers): z.output<typeof SharingGroupSchema> {
  return {
    id: g.id,
    uuid: g.uuid,
    name: g.name,
    releasability: g.releasability,
    description: g.description,
    org_id: g.orgId,
    organisation: g.org,
    active: g.active,
    local: g.local,
    roaming: g.roaming,
    sharing_group_orgs: g.members.map((m) => ({ org_id: m.orgId, extend: m.extend, organisation: m.org })),
    created_at: g.createdAt.toISOString(),
    updated_at: g.updatedAt.toISOString(),
  };
}
