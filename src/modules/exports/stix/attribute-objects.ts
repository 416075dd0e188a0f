/**
 * The STIX objects of one attribute document: pure, so tests call it directly and the writer only
 * adds de-duplication and streaming.
 *
 * Which object stands for the attribute:
 * - an `indicator` when the attribute is for detection (`to_ids`, MISP's own meaning of the flag;
 *   `indicators: "all"` exports every attribute that has a pattern as one) and its type has a
 *   pattern;
 * - otherwise an `observed-data` with the value's cyber-observable objects, when STIX has one
 *   (what was seen, not what to alert on);
 * - otherwise (text, comments, ports, vulnerabilities, values an SCO cannot hold) a `note` on the
 *   event's report, so nothing of the event is silently lost.
 */
import { attributeFacts } from "./attribute-values.ts";
import { derivedUuid, entityUuid } from "./ids.ts";
import { attributeObservables } from "./observables.ts";
import { isValidStixPattern } from "./pattern-syntax.ts";
import { factsPattern } from "./patterns.ts";
import type { AttributeSource } from "./source-documents.ts";
import { attackPatternsOfTags, markingsOfTags } from "./tags.ts";
import { stixTime } from "./time.ts";
import type { AttackPattern, Indicator, MarkingDefinition, Note, Observable, ObservedData, Relationship, StixCoreObject } from "./types.ts";

export type IndicatorPolicy = "to_ids" | "all";

export interface AttributeContext {
  /** The identity of the event's creator organisation, when known. */
  createdByRef?: string;
  /** Markings of the event (TLP), applied to its attributes as MISP applies event tags to them. */
  eventMarkings?: string[];
  indicators?: IndicatorPolicy;
}

export interface MappedAttribute {
  /** The object standing for the attribute: what the event's report refers to. */
  primary: Indicator | ObservedData | Note;
  /** SCOs of an observed-data. */
  observables: Observable[];
  /** Primary -> attack pattern, one per ATT&CK tag of the attribute. */
  relationships: Relationship[];
  /** Markings of the attribute's own tags (the event's are the writer's). */
  markings: MarkingDefinition[];
  attackPatterns: AttackPattern[];
}

export const reportId = (eventUuid: string) => `report--${entityUuid("report", eventUuid)}`;

/** Names are for display; a multi-kilobyte rule or value stays whole in the pattern or content. */
const NAME_LENGTH = 200;
const displayName = (value: string) => (value.length > NAME_LENGTH ? `${value.slice(0, NAME_LENGTH - 1)}…` : value);

function labels(a: AttributeSource): string[] {
  const out = [`misp:type="${a.type}"`];
  if (a.category) out.push(`misp:category="${a.category}"`);
  if (a.objectRelation) out.push(`misp:object_relation="${a.objectRelation}"`);
  return [...new Set([...out, ...a.tags])];
}

/** The time of an attribute; a timestamp STIX cannot write (corrupt data) falls back to the epoch rather than dropping the attribute. */
const attributeTime = (a: AttributeSource) => stixTime(a.timestamp) ?? stixTime(0)!;

function common(a: AttributeSource, ctx: AttributeContext, markingIds: string[], modified: string): Omit<StixCoreObject, "type" | "id"> {
  const out: Omit<StixCoreObject, "type" | "id"> = { spec_version: "2.1", created: modified, modified };
  if (ctx.createdByRef) out.created_by_ref = ctx.createdByRef;
  out.labels = labels(a);
  if (markingIds.length) out.object_marking_refs = markingIds;
  return out;
}

/** First and last sighting of the value: MISP's first_seen/last_seen, else the attribute's time. */
function seen(a: AttributeSource, time: string): { first: string; last: string | null } {
  const first = stixTime(a.firstSeen) ?? time;
  const last = stixTime(a.lastSeen);
  return { first, last: last && last >= first ? last : null };
}

function indicator(a: AttributeSource, ctx: AttributeContext, markingIds: string[], pattern: ReturnType<typeof factsPattern>): Indicator {
  const time = attributeTime(a);
  const { first, last } = seen(a, time);
  const out: Indicator = {
    type: "indicator",
    id: `indicator--${entityUuid("indicator", a.uuid)}`,
    ...common(a, ctx, markingIds, time),
    name: displayName(a.value),
    indicator_types: [a.toIds ? "malicious-activity" : "unknown"],
    pattern: pattern.pattern,
    pattern_type: pattern.pattern_type,
    valid_from: first,
  };
  if (pattern.pattern_type === "stix") out.pattern_version = "2.1";
  // valid_until must be later than valid_from.
  if (last && last > first) out.valid_until = last;
  if (a.comment) out.description = a.comment;
  if (a.category) out.kill_chain_phases = [{ kill_chain_name: "misp-category", phase_name: a.category }];
  return out;
}

function observedData(a: AttributeSource, ctx: AttributeContext, markingIds: string[], observables: Observable[]): ObservedData {
  const time = attributeTime(a);
  const { first, last } = seen(a, time);
  return {
    type: "observed-data",
    id: `observed-data--${entityUuid("observed-data", a.uuid)}`,
    ...common(a, ctx, markingIds, time),
    first_observed: first,
    last_observed: last ?? first,
    number_observed: 1,
    object_refs: observables.map((o) => o.id),
  };
}

function note(a: AttributeSource, ctx: AttributeContext, markingIds: string[]): Note {
  return {
    type: "note",
    id: `note--${entityUuid("note", a.uuid)}`,
    ...common(a, ctx, markingIds, attributeTime(a)),
    abstract: a.category ? `${a.category}: ${a.type}` : a.type,
    content: a.comment ? `${a.value}\n\n${a.comment}` : a.value,
    object_refs: [reportId(a.eventUuid)],
  };
}

function relationship(from: StixCoreObject, to: AttackPattern): Relationship {
  const type = from.type === "indicator" ? "indicates" : "related-to";
  const out: Relationship = {
    type: "relationship",
    spec_version: "2.1",
    id: `relationship--${derivedUuid("relationship", `${from.id}|${type}|${to.id}`)}`,
    created: from.created,
    modified: from.modified,
    relationship_type: type,
    source_ref: from.id,
    target_ref: to.id,
  };
  if (from.created_by_ref) out.created_by_ref = from.created_by_ref;
  if (from.object_marking_refs) out.object_marking_refs = from.object_marking_refs;
  return out;
}

export function mapAttribute(a: AttributeSource, ctx: AttributeContext = {}): MappedAttribute {
  const markings = markingsOfTags(a.tags);
  const markingIds = [...new Set([...markings.map((m) => m.id), ...(ctx.eventMarkings ?? [])])];
  const attackPatterns = attackPatternsOfTags(a.tags);
  const facts = attributeFacts(a.type, a.value);
  let primary: Indicator | ObservedData | Note | null = null;
  let observables: Observable[] = [];
  if (facts && (a.toIds || ctx.indicators === "all")) {
    const pattern = factsPattern(facts);
    // A stix2-pattern attribute is a pattern written by hand, which may be broken. Ours are built
    // from fixed paths and escaped literals (the tests parse them); parsing each again would cost a
    // fifth of an export's time.
    const handWritten = facts.kind === "rule" && facts.patternType === "stix";
    if (!handWritten || isValidStixPattern(pattern.pattern)) primary = indicator(a, ctx, markingIds, pattern);
  }
  if (!primary && facts) {
    const scos = attributeObservables(a.type, a.value, markingIds);
    if (scos) {
      observables = scos;
      primary = observedData(a, ctx, markingIds, scos);
    }
  }
  primary ??= note(a, ctx, markingIds);
  const from = primary;
  return { primary, observables, relationships: attackPatterns.map((p) => relationship(from, p)), markings, attackPatterns };
}
