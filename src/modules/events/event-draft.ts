import type { ReportDraft } from "../reports/index.ts";

/**
 * The normalised, validated shape of an event graph before it is written. MISP JSON import, the
 * REST/GraphQL create routes and feed ingestion all produce drafts; one writer stores them.
 */
export interface TagDraft {
  name: string;
  colour: string | null;
  exportable: boolean;
  local: boolean;
}

export interface SightingDraft {
  uuid: string;
  type: number;
  source: string;
  dateSighting: number;
  orgName: string | null;
  orgUuid: string | null;
}

export interface AttributeDraft {
  uuid: string;
  type: string;
  category: string;
  value: string;
  value1: string;
  value2: string | null;
  toIds: boolean;
  comment: string;
  distribution: number;
  sharingGroupId: number | null;
  /** The file's SharingGroup block: the local group is found (or, syncing, created) by its uuid. */
  sharingGroup: SharingGroupDraft | null;
  timestamp: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
  deleted: boolean;
  disableCorrelation: boolean;
  objectRelation: string | null;
  tags: TagDraft[];
  sightings: SightingDraft[];
}

export interface ReferenceDraft {
  uuid: string;
  referencedUuid: string;
  referencedType: number | null;
  relationshipType: string;
  comment: string;
  timestamp: number;
  deleted: boolean;
}

export interface ObjectDraft {
  uuid: string;
  name: string;
  metaCategory: string | null;
  description: string | null;
  templateUuid: string | null;
  templateVersion: number | null;
  timestamp: number;
  distribution: number;
  sharingGroupId: number | null;
  /** The file's SharingGroup block: the local group is found (or, syncing, created) by its uuid. */
  sharingGroup: SharingGroupDraft | null;
  comment: string;
  deleted: boolean;
  firstSeen: Date | null;
  lastSeen: Date | null;
  attributes: AttributeDraft[];
  references: ReferenceDraft[];
}

export interface OrgDraft {
  uuid: string | null;
  name: string;
}

/**
 * A MISP SharingGroup block: the group by uuid, its owner and member organisations. A field the
 * block leaves out is null: a new group takes MISP's default, a known one updated by sync keeps its own.
 */
export interface SharingGroupDraft {
  uuid: string;
  name: string;
  releasability: string | null;
  description: string | null;
  /** MISP's flag: sync may push the group's data to any member's server (false: internal servers only). */
  roaming: boolean | null;
  /** MISP's created and modified: whether this copy is newer than a known group is decided by modified. */
  created: Date | null;
  modified: Date | null;
  owner: OrgDraft | null;
  members: (OrgDraft & { extend: boolean })[];
}

export interface EventDraft {
  uuid: string;
  info: string;
  date: string;
  threatLevel: number;
  analysis: number;
  distribution: number;
  sharingGroupId: number | null;
  /** The file's SharingGroup block: the local group is found (or, syncing, created) by its uuid. */
  sharingGroup: SharingGroupDraft | null;
  published: boolean;
  timestamp: number;
  publishTimestamp: number;
  sightingTimestamp: number | null;
  locked: boolean;
  proposalEmailLock: boolean;
  protected: boolean;
  disableCorrelation: boolean;
  extendsUuid: string | null;
  orgc: OrgDraft | null;
  tags: TagDraft[];
  galaxies: unknown[];
  attributes: AttributeDraft[];
  objects: ObjectDraft[];
  /** MISP's EventReport[]; absent: the event's reports are left as they are. */
  reports?: ReportDraft[];
}
