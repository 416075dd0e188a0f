/**
 * The STIX 2.1 objects this exporter writes, typed as far as we fill them (the specification allows
 * more). Optional list properties are left out rather than written empty: the specification forbids
 * empty lists.
 */

export interface StixBase {
  type: string;
  spec_version: "2.1";
  id: string;
}

export interface ExternalReference {
  source_name: string;
  external_id?: string;
  url?: string;
  description?: string;
}

export interface KillChainPhase {
  kill_chain_name: string;
  phase_name: string;
}

/** Properties common to the domain and relationship objects (SDOs and SROs). */
export interface StixCoreObject extends StixBase {
  created: string;
  modified: string;
  created_by_ref?: string;
  labels?: string[];
  external_references?: ExternalReference[];
  object_marking_refs?: string[];
}

export interface Identity extends StixCoreObject {
  type: "identity";
  name: string;
  identity_class: "organization";
}

export interface AttackPattern extends StixCoreObject {
  type: "attack-pattern";
  name: string;
}

export interface Indicator extends StixCoreObject {
  type: "indicator";
  name: string;
  description?: string;
  indicator_types: string[];
  pattern: string;
  pattern_type: string;
  pattern_version?: string;
  valid_from: string;
  valid_until?: string;
  kill_chain_phases?: KillChainPhase[];
}

export interface ObservedData extends StixCoreObject {
  type: "observed-data";
  first_observed: string;
  last_observed: string;
  number_observed: number;
  object_refs: string[];
}

export interface Note extends StixCoreObject {
  type: "note";
  abstract?: string;
  content: string;
  object_refs: string[];
}

export interface Relationship extends StixCoreObject {
  type: "relationship";
  relationship_type: string;
  source_ref: string;
  target_ref: string;
}

export interface Report extends StixCoreObject {
  type: "report";
  name: string;
  report_types: string[];
  published: string;
  object_refs: string[];
}

/** A TLP 1.0 marking (`definition_type` tlp) or a TLP 2.0 one (the extension of the CTI TC's common objects). */
export interface MarkingDefinition extends StixBase {
  type: "marking-definition";
  created: string;
  name: string;
  definition_type?: "tlp";
  definition?: { tlp: string };
  extensions?: Record<string, { extension_type: "property-extension"; tlp_2_0: string }>;
}

/** A cyber-observable object (SCO): its properties depend on its type. */
export interface Observable extends StixBase {
  object_marking_refs?: string[];
  [property: string]: unknown;
}

export type StixObject = Identity | AttackPattern | Indicator | ObservedData | Note | Relationship | Report | MarkingDefinition | Observable;
