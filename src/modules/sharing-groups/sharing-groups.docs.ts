/** Field descriptions of sharing groups, written once for REST and GraphQL. */
export const SHARING_GROUP_DOC = {
  id: "Numeric id of the sharing group",
  uuid: "The sharing group's UUID (kept across instances)",
  name: "Its name, unique on this instance",
  releasability: "Who the data may be passed on to (MISP's releasability statement)",
  description: "What the group is for",
  orgId: "Numeric id of the owning organisation, which manages it and always belongs to it",
  active: "Whether data may be assigned to it; an inactive group still reads as before",
  local: "Created on this instance (false: received from a synchronised instance)",
  roaming: "MISP's roaming flag: sync may push its data to any server of a member organisation (false: internal servers only)",
  members: "Its member organisations, the owner included",
  createdAt: "When it was created",
  updatedAt: "When it last changed",
  memberOrgId: "Numeric id of the member organisation",
  memberOrgUuid: "The member organisation's UUID",
  memberOrgName: "The member organisation's name",
  extend: "Whether the member may add organisations to the group",
} as const;
