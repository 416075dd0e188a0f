/** The sharing groups area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { memberContract, sharingGroupCreateContract, sharingGroupPatchContract } from "./sharing-groups.contracts.ts";
export type { MemberInput, SharingGroupCreate, SharingGroupPatch } from "./sharing-groups.contracts.ts";
export { SHARING_GROUP_DOC } from "./sharing-groups.docs.ts";
export { checkAssignableSharingGroups, type SharingGroupRef } from "./assignable.ts";
export { mispSharingGroupBlocks } from "./misp-sharing-groups.ts";
export { SharingGroupsService, WITH_MEMBERS } from "./sharing-groups.service.ts";
export type { CaptureOptions, SharingGroupQuery, SharingGroupRow, SharingGroupWithMembers } from "./sharing-groups.service.ts";
