import crypto from "node:crypto";
import { errors, type ValidationIssue } from "../../platform/errors.ts";
import {
  defaultCategoryFor,
  defaultToIdsFor,
  isCompositeType,
  isKnownType,
  isValidCategoryForType,
  splitComposite,
  validateAttributeValue,
} from "../attributes/index.ts";
import type { AttributeDraft, EventDraft, ObjectDraft, OrgDraft, ReferenceDraft, SharingGroupDraft, SightingDraft, TagDraft } from "./event-draft.ts";
import { unsafeTextReason } from "../../platform/unsafe-text.ts";
import { MAX_REPORT_CONTENT_BYTES, MAX_REPORT_NAME_LENGTH, type ReportDraft } from "../reports/index.ts";

/** Limits on one imported event (a MISP event of 100 000 attributes must fit; 10x that would not). */
export const IMPORT_LIMITS = {
  attributes: 250_000,
  objects: 50_000,
  reports: 1000,
  tagsPerEntity: 1000,
  infoLength: 65_535,
  commentLength: 65_535,
  nameLength: 255,
  galaxiesBytes: 5_000_000,
  issuesReported: 100,
  /** MISP's deepest real structures (Galaxy > GalaxyCluster > meta > refs) are about 10 levels. */
  depth: 64,
};

/**
 * The fields of MISP's event format, per level. Anything else is refused (422 naming it) instead of
 * being silently dropped; fields listed here that we do not keep (`id`, `Org`, `RelatedEvent`, ...)
 * are accepted and ignored.
 */
const ANALYST_DATA = ["Note", "Opinion", "Relationship"];
const KNOWN = {
  wrapper: new Set(["Event"]),
  event: new Set([
    "id", "orgc_id", "org_id", "user_id", "date", "threat_level_id", "threat_level", "info", "published", "uuid", "attribute_count",
    "object_count", "analysis", "timestamp", "distribution", "proposal_email_lock", "locked", "publish_timestamp", "sharing_group_id",
    "disable_correlation", "extends_uuid", "protected", "event_creator_email", "sighting_timestamp", "deleted", "Org", "Orgc",
    "Attribute", "ShadowAttribute", "RelatedEvent", "Galaxy", "Object", "EventReport", "Tag", "EventTag", "CryptographicKey",
    "SharingGroup", "Sighting", ...ANALYST_DATA,
  ]),
  org: new Set(["id", "name", "uuid", "local", "description", "type", "nationality", "sector", "contacts", "created_by", "date_created", "date_modified", "restricted_to_domain", "landing_page"]),
  attribute: new Set([
    "id", "event_id", "object_id", "object_relation", "category", "type", "value", "value1", "value2", "to_ids", "uuid", "timestamp",
    "distribution", "sharing_group_id", "comment", "deleted", "disable_correlation", "first_seen", "last_seen", "data", "encrypt",
    "malware_binary", "event_uuid", "object_uuid", "decay_score", "Tag", "AttributeTag", "Galaxy", "ShadowAttribute", "Sighting",
    "SharingGroup", "RelatedAttribute", "Correlation", "Event", "Object", ...ANALYST_DATA,
  ]),
  object: new Set([
    "id", "name", "meta-category", "meta_category", "description", "template_uuid", "template_version", "event_id", "event_uuid", "uuid",
    "timestamp", "distribution", "sharing_group_id", "comment", "deleted", "first_seen", "last_seen", "Attribute", "ObjectReference",
    "SharingGroup", "Event", ...ANALYST_DATA,
  ]),
  reference: new Set([
    "id", "uuid", "timestamp", "object_id", "event_id", "event_uuid", "source_uuid", "object_uuid", "referenced_uuid", "referenced_id",
    "referenced_type", "relationship_type", "comment", "deleted", "Attribute", "Object",
  ]),
  tag: new Set([
    "id", "name", "colour", "exportable", "org_id", "user_id", "hide_tag", "numerical_value", "is_galaxy", "is_custom_galaxy", "local_only",
    "local", "relationship_type", "inherited", "attribute_count", "count", "favourite",
  ]),
  report: new Set(["id", "uuid", "event_id", "event_uuid", "name", "content", "distribution", "sharing_group_id", "timestamp", "deleted", "Event", "SharingGroup"]),
  sighting: new Set(["id", "attribute_id", "attribute_uuid", "event_id", "org_id", "date_sighting", "uuid", "source", "type", "value", "Organisation"]),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` that exists in the calendar, years 1..9999 (V8 takes 2021-02-29 as 2021-03-01; PostgreSQL refuses it). */
export function isCalendarDate(v: string): boolean {
  if (!DATE.test(v) || v.startsWith("0000")) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

type Loc = (string | number)[];
type Json = Record<string, unknown>;

class Issues {
  readonly list: ValidationIssue[] = [];
  count = 0;
  add(loc: Loc, msg: string, input?: unknown, type = "value_error"): void {
    this.count++;
    if (this.list.length < IMPORT_LIMITS.issuesReported) {
      this.list.push({ type, loc, msg, ...(input === undefined ? {} : { input: clip(input) }) });
    }
  }
  mark(): { count: number; length: number } {
    return { count: this.count, length: this.list.length };
  }
  /** Removes and returns what was added since `mark` (an attribute that is skipped, not fatal). */
  takeSince(mark: { count: number; length: number }): ValidationIssue[] {
    this.count = mark.count;
    return this.list.splice(mark.length);
  }
}

export interface ParseOptions {
  /**
   * MISP's own behaviour on import: drop attributes that fail validation and report them, instead
   * of rejecting the event. Off by default (the API answers 422 and writes nothing).
   */
  skipInvalidAttributes?: boolean;
}

export interface ParsedEvent {
  draft: EventDraft;
  /** Problems of attributes that were dropped (only with skipInvalidAttributes). */
  skipped: ValidationIssue[];
}

/** What an issue echoes of the input: short strings and scalars only, never a (possibly huge or deep) structure. */
const clip = (v: unknown) =>
  typeof v === "string" ? (v.length > 200 ? `${v.slice(0, 200)}…` : v) : typeof v === "object" && v !== null ? (Array.isArray(v) ? "[array]" : "[object]") : v;

/** Refuses JSON nested deeper than `max` before anything recurses over it (stack overflow, 500). */
function assertDepth(body: unknown, max: number): void {
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) throw errors.payloadTooLarge(`JSON is nested more than ${max} levels deep`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
}

/** A NUL, or a lone surrogate escaped by JSON.stringify: PostgreSQL's jsonb refuses both. */
const JSONB_UNSAFE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parses an event in MISP's JSON form (`{"Event": {...}}`, or the bare event object as PyMISP also
 * writes it) into a draft. MISP writes numbers as strings and booleans as "0"/"1": both are read.
 * MISP-internal fields (`id`, `event_id`, `org_id`, `Org`, `ShadowAttribute`, `RelatedEvent`, ...) are
 * ignored: ownership comes from the caller, never from the document. Every problem is collected;
 * any problem rejects the whole event (422) so nothing is partially written.
 */
export function parseMispEvent(body: unknown, opts: ParseOptions = {}): ParsedEvent {
  assertDepth(body, IMPORT_LIMITS.depth);
  const issues = new Issues();
  const skipped: ValidationIssue[] = [];
  /** Parses one attribute; in skip mode an invalid one is dropped and its problems reported. */
  const attribute = (a: unknown, loc: Loc, now: number, claim: (u: string, l: Loc) => void): AttributeDraft | null => {
    const mark = issues.mark();
    const parsed = parseAttribute(p, a, loc, now, claim);
    if (opts.skipInvalidAttributes && issues.count > mark.count) {
      skipped.push(...issues.takeSince(mark));
      return null;
    }
    return parsed;
  };
  const root = isObject(body) && isObject(body.Event) ? body.Event : body;
  const base: Loc = isObject(body) && isObject(body.Event) ? ["body", "Event"] : ["body"];
  if (!isObject(root)) throw errors.invalidField(["body"], "Expected a MISP event object ({\"Event\": {...}})");
  const p = new FieldReader(issues);
  if (root !== body) p.known(body as Json, KNOWN.wrapper, ["body"]);
  p.known(root, KNOWN.event, base);
  const now = Math.floor(Date.now() / 1000);
  const uuids = new Set<string>();
  const claim = (uuid: string, loc: Loc) => {
    if (uuids.has(uuid)) issues.add(loc, "Duplicate uuid in this event", uuid);
    uuids.add(uuid);
  };

  const eventUuid = p.uuid(root.uuid, [...base, "uuid"], true);
  const info = p.string(root.info, [...base, "info"], { required: true, max: IMPORT_LIMITS.infoLength }) ?? "";
  if (!info.trim()) issues.add([...base, "info"], "info must not be empty");
  const date = p.date(root.date, [...base, "date"]);
  if (isObject(root.Orgc)) p.known(root.Orgc, KNOWN.org, [...base, "Orgc"]);
  const orgc = isObject(root.Orgc)
    ? {
        uuid: root.Orgc.uuid === undefined ? null : p.uuid(root.Orgc.uuid, [...base, "Orgc", "uuid"], false),
        name: p.string(root.Orgc.name, [...base, "Orgc", "name"], { required: true, max: IMPORT_LIMITS.nameLength }) ?? "",
      }
    : null;

  const galaxies = Array.isArray(root.Galaxy) ? root.Galaxy : [];
  const galaxyJson = JSON.stringify(galaxies);
  if (galaxyJson.length > IMPORT_LIMITS.galaxiesBytes) issues.add([...base, "Galaxy"], "Galaxy block is too large");
  else if (JSONB_UNSAFE.test(galaxyJson)) issues.add([...base, "Galaxy"], "Must not contain NUL characters or unpaired surrogates");

  const rawAttributes = p.list(root.Attribute, [...base, "Attribute"]);
  const rawObjects = p.list(root.Object, [...base, "Object"]);
  const totalAttributes = rawAttributes.length + rawObjects.reduce<number>((n, o) => n + (isObject(o) && Array.isArray(o.Attribute) ? o.Attribute.length : 0), 0);
  if (totalAttributes > IMPORT_LIMITS.attributes) throw errors.payloadTooLarge(`An event may hold at most ${IMPORT_LIMITS.attributes} attributes`);
  if (rawObjects.length > IMPORT_LIMITS.objects) throw errors.payloadTooLarge(`An event may hold at most ${IMPORT_LIMITS.objects} objects`);

  const attributes = rawAttributes.flatMap((a, i) => attribute(a, [...base, "Attribute", i], now, claim) ?? []);
  const objects = rawObjects.map((o, i) => parseObject(p, o, [...base, "Object", i], now, claim, attribute));
  const rawReports = p.list(root.EventReport, [...base, "EventReport"]);
  if (rawReports.length > IMPORT_LIMITS.reports) throw errors.payloadTooLarge(`An event may hold at most ${IMPORT_LIMITS.reports} event reports`);
  const reports = rawReports.map((r, i) => parseReport(p, r, [...base, "EventReport", i], now, claim));

  const draft: EventDraft = {
    uuid: eventUuid ?? crypto.randomUUID(),
    info,
    date,
    threatLevel: p.intIn(root.threat_level_id ?? root.threat_level, [...base, "threat_level_id"], 1, 4, 4),
    analysis: p.intIn(root.analysis, [...base, "analysis"], 0, 2, 0),
    distribution: p.intIn(root.distribution, [...base, "distribution"], 0, 4, 0),
    sharingGroupId: p.foreignSharingGroup(root.sharing_group_id, [...base, "sharing_group_id"]),
    sharingGroup: p.sharingGroup(root.SharingGroup, [...base, "SharingGroup"]),
    published: p.bool(root.published, [...base, "published"], false),
    timestamp: p.epoch(root.timestamp, [...base, "timestamp"], now),
    publishTimestamp: p.epoch(root.publish_timestamp, [...base, "publish_timestamp"], 0),
    sightingTimestamp: root.sighting_timestamp == null ? null : p.epoch(root.sighting_timestamp, [...base, "sighting_timestamp"], 0),
    locked: p.bool(root.locked, [...base, "locked"], false),
    proposalEmailLock: p.bool(root.proposal_email_lock, [...base, "proposal_email_lock"], false),
    protected: p.bool(root.protected, [...base, "protected"], false),
    disableCorrelation: p.bool(root.disable_correlation, [...base, "disable_correlation"], false),
    extendsUuid: root.extends_uuid ? p.uuid(root.extends_uuid, [...base, "extends_uuid"], false) : null,
    orgc: orgc && orgc.name ? orgc : null,
    tags: p.tags(root.Tag, [...base, "Tag"]),
    galaxies,
    attributes,
    objects,
    ...(root.EventReport === undefined ? {} : { reports }),
  };
  if (issues.count) {
    const list = [...issues.list];
    if (issues.count > list.length) list.push({ type: "too_many_errors", loc: base, msg: `${issues.count - list.length} more problems not shown` });
    throw errors.validation(list);
  }
  return { draft, skipped };
}

function parseAttribute(p: FieldReader, a: unknown, loc: Loc, now: number, claim: (u: string, l: Loc) => void): AttributeDraft {
  if (!isObject(a)) {
    p.issues.add(loc, "Expected an attribute object");
    return placeholderAttribute();
  }
  p.known(a, KNOWN.attribute, loc);
  const uuid = p.uuid(a.uuid, [...loc, "uuid"], true) ?? crypto.randomUUID();
  claim(uuid, [...loc, "uuid"]);
  const type = p.string(a.type, [...loc, "type"], { required: true, max: 100 }) ?? "";
  let category = p.string(a.category, [...loc, "category"], { max: 100 }) ?? null;
  let value = "";
  let value1 = "";
  let value2: string | null = null;
  if (!isKnownType(type)) {
    p.issues.add([...loc, "type"], "Unknown attribute type", type);
  } else {
    category ??= defaultCategoryFor(type) ?? null;
    if (!category || !isValidCategoryForType(type, category)) p.issues.add([...loc, "category"], `Category is not valid for type ${type}`, category);
    const raw = typeof a.value === "number" ? String(a.value) : a.value;
    if (typeof raw !== "string") p.issues.add([...loc, "value"], "Value must be a string", raw);
    else {
      const checked = validateAttributeValue(type, raw);
      if (!checked.ok) p.issues.add([...loc, "value"], checked.reason, raw);
      else {
        value = checked.normalized;
        value1 = value;
        if (isCompositeType(type)) {
          const parts = splitComposite(type, value);
          if (parts) {
            value1 = parts[0].value;
            value2 = parts[1].value;
          }
        }
      }
    }
  }
  return {
    uuid,
    type,
    category: category ?? "",
    value,
    value1,
    value2,
    toIds: p.bool(a.to_ids, [...loc, "to_ids"], defaultToIdsFor(type) ?? false),
    comment: p.string(a.comment, [...loc, "comment"], { max: IMPORT_LIMITS.commentLength }) ?? "",
    distribution: p.intIn(a.distribution, [...loc, "distribution"], 0, 5, 5),
    sharingGroupId: p.foreignSharingGroup(a.sharing_group_id, [...loc, "sharing_group_id"]),
    sharingGroup: p.sharingGroup(a.SharingGroup, [...loc, "SharingGroup"]),
    timestamp: p.epoch(a.timestamp, [...loc, "timestamp"], now),
    firstSeen: p.datetime(a.first_seen, [...loc, "first_seen"]),
    lastSeen: p.datetime(a.last_seen, [...loc, "last_seen"]),
    deleted: p.bool(a.deleted, [...loc, "deleted"], false),
    disableCorrelation: p.bool(a.disable_correlation, [...loc, "disable_correlation"], false),
    objectRelation: p.string(a.object_relation, [...loc, "object_relation"], { max: 255 }) ?? null,
    tags: p.tags(a.Tag, [...loc, "Tag"]),
    sightings: p.list(a.Sighting, [...loc, "Sighting"]).map((s, i) => parseSighting(p, s, [...loc, "Sighting", i], now)),
  };
}

function parseSighting(p: FieldReader, s: unknown, loc: Loc, now: number): SightingDraft {
  if (!isObject(s)) p.issues.add(loc, "Expected a sighting object");
  const o = isObject(s) ? s : {};
  p.known(o, KNOWN.sighting, loc);
  const org = isObject(o.Organisation) ? o.Organisation : null;
  if (org) p.known(org, KNOWN.org, [...loc, "Organisation"]);
  return {
    uuid: (o.uuid === undefined ? null : p.uuid(o.uuid, [...loc, "uuid"], false)) ?? crypto.randomUUID(),
    type: p.intIn(o.type, [...loc, "type"], 0, 2, 0),
    source: p.string(o.source, [...loc, "source"], { max: 255 }) ?? "",
    dateSighting: p.epoch(o.date_sighting, [...loc, "date_sighting"], now),
    orgName: org ? (p.string(org.name, [...loc, "Organisation", "name"], { max: 255 }) ?? null) : null,
    orgUuid: org && org.uuid !== undefined ? p.uuid(org.uuid, [...loc, "Organisation", "uuid"], false) : null,
  };
}

type AttributeParser = (a: unknown, loc: Loc, now: number, claim: (u: string, l: Loc) => void) => AttributeDraft | null;

function parseObject(p: FieldReader, o: unknown, loc: Loc, now: number, claim: (u: string, l: Loc) => void, attribute: AttributeParser): ObjectDraft {
  if (!isObject(o)) {
    p.issues.add(loc, "Expected an object");
    o = {};
  }
  const obj = o as Json;
  p.known(obj, KNOWN.object, loc);
  const uuid = p.uuid(obj.uuid, [...loc, "uuid"], true) ?? crypto.randomUUID();
  claim(uuid, [...loc, "uuid"]);
  const name = p.string(obj.name, [...loc, "name"], { required: true, max: IMPORT_LIMITS.nameLength }) ?? "";
  const references: ReferenceDraft[] = p.list(obj.ObjectReference, [...loc, "ObjectReference"]).map((r, i) => {
    const rl = [...loc, "ObjectReference", i];
    if (!isObject(r)) p.issues.add(rl, "Expected an object reference");
    const ref = isObject(r) ? r : {};
    p.known(ref, KNOWN.reference, rl);
    const refUuid = p.uuid(ref.uuid, [...rl, "uuid"], true) ?? crypto.randomUUID();
    claim(refUuid, [...rl, "uuid"]);
    return {
      uuid: refUuid,
      referencedUuid: p.uuid(ref.referenced_uuid, [...rl, "referenced_uuid"], true) ?? "",
      referencedType: ref.referenced_type == null ? null : p.intIn(ref.referenced_type, [...rl, "referenced_type"], 0, 1, 0),
      relationshipType: p.string(ref.relationship_type, [...rl, "relationship_type"], { required: true, max: 255 }) ?? "",
      comment: p.string(ref.comment, [...rl, "comment"], { max: IMPORT_LIMITS.commentLength }) ?? "",
      timestamp: p.epoch(ref.timestamp, [...rl, "timestamp"], now),
      deleted: p.bool(ref.deleted, [...rl, "deleted"], false),
    };
  });
  return {
    uuid,
    name,
    metaCategory: p.string(obj["meta-category"] ?? obj.meta_category, [...loc, "meta-category"], { max: 255 }) ?? null,
    description: p.string(obj.description, [...loc, "description"], { max: IMPORT_LIMITS.commentLength }) ?? null,
    templateUuid: obj.template_uuid ? (p.uuid(obj.template_uuid, [...loc, "template_uuid"], false) ?? null) : null,
    templateVersion: obj.template_version == null || obj.template_version === "" ? null : p.intIn(obj.template_version, [...loc, "template_version"], 0, 1_000_000, 0),
    timestamp: p.epoch(obj.timestamp, [...loc, "timestamp"], now),
    distribution: p.intIn(obj.distribution, [...loc, "distribution"], 0, 5, 5),
    sharingGroupId: p.foreignSharingGroup(obj.sharing_group_id, [...loc, "sharing_group_id"]),
    sharingGroup: p.sharingGroup(obj.SharingGroup, [...loc, "SharingGroup"]),
    comment: p.string(obj.comment, [...loc, "comment"], { max: IMPORT_LIMITS.commentLength }) ?? "",
    deleted: p.bool(obj.deleted, [...loc, "deleted"], false),
    firstSeen: p.datetime(obj.first_seen, [...loc, "first_seen"]),
    lastSeen: p.datetime(obj.last_seen, [...loc, "last_seen"]),
    attributes: p.list(obj.Attribute, [...loc, "Attribute"]).flatMap((a, i) => attribute(a, [...loc, "Attribute", i], now, claim) ?? []),
    references,
  };
}

/** MISP's EventReport: a markdown report of the event (name, content, distribution, timestamp, deleted). */
function parseReport(p: FieldReader, r: unknown, loc: Loc, now: number, claim: (u: string, l: Loc) => void): ReportDraft {
  if (!isObject(r)) p.issues.add(loc, "Expected an event report object");
  const o = isObject(r) ? r : {};
  p.known(o, KNOWN.report, loc);
  const uuid = p.uuid(o.uuid, [...loc, "uuid"], true) ?? crypto.randomUUID();
  claim(uuid, [...loc, "uuid"]);
  const name = p.string(o.name, [...loc, "name"], { required: true, max: MAX_REPORT_NAME_LENGTH }) ?? "";
  if (/[\r\n]/.test(name)) p.issues.add([...loc, "name"], "Must be one line", name);
  const content = p.string(o.content, [...loc, "content"]) ?? "";
  if (Buffer.byteLength(content, "utf8") > MAX_REPORT_CONTENT_BYTES) p.issues.add([...loc, "content"], `Must be at most ${MAX_REPORT_CONTENT_BYTES} bytes (UTF-8)`);
  return {
    uuid,
    name: name.trim() || `Event report (${now})`,
    content,
    distribution: p.intIn(o.distribution, [...loc, "distribution"], 0, 5, 5),
    sharingGroupId: p.foreignSharingGroup(o.sharing_group_id, [...loc, "sharing_group_id"]),
    sharingGroup: p.sharingGroup(o.SharingGroup, [...loc, "SharingGroup"]),
    timestamp: p.epoch(o.timestamp, [...loc, "timestamp"], now),
    deleted: p.bool(o.deleted, [...loc, "deleted"], false),
  };
}

function placeholderAttribute(): AttributeDraft {
  return {
    uuid: crypto.randomUUID(), type: "", category: "", value: "", value1: "", value2: null, toIds: false, comment: "",
    distribution: 5, sharingGroupId: null, sharingGroup: null, timestamp: 0, firstSeen: null, lastSeen: null, deleted: false,
    disableCorrelation: false, objectRelation: null, tags: [], sightings: [],
  };
}

/** Reads MISP's loosely typed fields, recording a problem instead of throwing. */
class FieldReader {
  constructor(readonly issues: Issues) {}

  uuid(v: unknown, loc: Loc, required: boolean): string | null {
    if (v === undefined || v === null || v === "") {
      if (required) this.issues.add(loc, "Field required");
      return null;
    }
    if (typeof v !== "string" || !UUID.test(v)) {
      this.issues.add(loc, "Invalid UUID", v);
      return null;
    }
    return v.toLowerCase();
  }

  string(v: unknown, loc: Loc, opts: { required?: boolean; max?: number } = {}): string | undefined {
    if (v === undefined || v === null) {
      if (opts.required) this.issues.add(loc, "Field required");
      return undefined;
    }
    if (typeof v !== "string") {
      this.issues.add(loc, "Must be a string", v);
      return undefined;
    }
    // MISP files come from feeds and archives too, past the request check of every route.
    const unsafe = unsafeTextReason(v);
    if (unsafe) {
      this.issues.add(loc, unsafe[0].toUpperCase() + unsafe.slice(1));
      return undefined;
    }
    if (opts.max !== undefined && v.length > opts.max) {
      this.issues.add(loc, `Must be at most ${opts.max} characters`, v);
      return undefined;
    }
    return v;
  }

  intIn(v: unknown, loc: Loc, min: number, max: number, dflt: number): number {
    if (v === undefined || v === null || v === "") return dflt;
    const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d{1,10}$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      this.issues.add(loc, `Must be an integer from ${min} to ${max}`, v);
      return dflt;
    }
    return n;
  }

  /**
   * A sharing group id as the sending instance numbered it: checked as an id, then dropped, since it
   * names nothing here (data of distribution 4 without a local group reads as its owners' only).
   */
  foreignSharingGroup(v: unknown, loc: Loc): null {
    this.optionalId(v, loc);
    return null;
  }

  /** A SharingGroup block (MISP's export shape); null when absent. Only what a local group needs is read. */
  sharingGroup(v: unknown, loc: Loc): SharingGroupDraft | null {
    if (v === undefined || v === null) return null;
    if (!isObject(v)) {
      this.issues.add(loc, "Must be an object", v);
      return null;
    }
    const uuid = this.uuid(v.uuid, [...loc, "uuid"], true);
    const name = this.string(v.name, [...loc, "name"], { required: true, max: IMPORT_LIMITS.nameLength });
    const given = (key: string) => v[key] !== undefined && v[key] !== null;
    const text = (key: string) => (given(key) ? (this.string(v[key], [...loc, key], { max: 65_535 }) ?? "") : null);
    const org = (o: unknown, at: Loc): OrgDraft | null => {
      if (!isObject(o)) return null;
      const orgName = this.string(o.name, [...at, "name"], { required: true, max: IMPORT_LIMITS.nameLength });
      return orgName ? { uuid: o.uuid === undefined ? null : this.uuid(o.uuid, [...at, "uuid"], false), name: orgName } : null;
    };
    const rawMembers = this.list(v.SharingGroupOrg, [...loc, "SharingGroupOrg"]);
    if (rawMembers.length > 1000) {
      this.issues.add([...loc, "SharingGroupOrg"], "At most 1000 member organisations", rawMembers.length);
      return null;
    }
    const members = rawMembers.flatMap((m, i) => {
      if (!isObject(m)) return [];
      const member = org(m.Organisation, [...loc, "SharingGroupOrg", i, "Organisation"]);
      return member ? [{ ...member, extend: this.bool(m.extend, [...loc, "SharingGroupOrg", i, "extend"], false) }] : [];
    });
    if (!uuid || !name) return null;
    const roaming = given("roaming") ? this.bool(v.roaming, [...loc, "roaming"], false) : null;
    const created = this.dateTime(v.created, [...loc, "created"]);
    const modified = this.dateTime(v.modified, [...loc, "modified"]);
    return { uuid, name, releasability: text("releasability"), description: text("description"), roaming, created, modified, owner: org(v.Organisation, [...loc, "Organisation"]), members };
  }

  /**
   * MISP's datetime columns as it writes them (`2024-05-01 10:00:00`, UTC on a sync server) or ISO 8601
   * with a zone; null when absent.
   */
  dateTime(v: unknown, loc: Loc): Date | null {
    if (v === undefined || v === null || v === "") return null;
    const m = typeof v === "string" ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)(Z|[+-]\d{2}:\d{2})?$/.exec(v.trim()) : null;
    // MySQL's zero date, which old MISP rows hold: earlier than anything.
    if (m && m[1] === "0000-00-00") return new Date(0);
    const d = m ? new Date(`${m[1]}T${m[2]}${m[3] ?? "Z"}`) : null;
    // Date rolls 2024-02-30 over to March: the day must be one of its month's.
    const [year, month, day] = (m?.[1] ?? "0-0-0").split("-").map(Number);
    const calendarDay = new Date(Date.UTC(year!, month! - 1, day!));
    if (!d || Number.isNaN(d.getTime()) || year! < 1 || calendarDay.getUTCMonth() !== month! - 1 || calendarDay.getUTCDate() !== day) {
      this.issues.add(loc, "Must be a date and time (YYYY-MM-DD HH:MM:SS, UTC)", v);
      return null;
    }
    return d;
  }

  optionalId(v: unknown, loc: Loc): number | null {
    const n = this.intIn(v, loc, 0, 2_147_483_647, 0);
    return n === 0 ? null : n;
  }

  epoch(v: unknown, loc: Loc, dflt: number): number {
    if (v === undefined || v === null || v === "") return dflt;
    const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,12}$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 0 || n > 253_402_300_799) {
      this.issues.add(loc, "Must be a UNIX timestamp in seconds", v);
      return dflt;
    }
    return n;
  }

  bool(v: unknown, loc: Loc, dflt: boolean): boolean {
    if (v === undefined || v === null || v === "") return dflt;
    if (v === true || v === false) return v;
    if (v === 1 || v === "1" || v === "true") return true;
    if (v === 0 || v === "0" || v === "false") return false;
    this.issues.add(loc, "Must be a boolean", v);
    return dflt;
  }

  /** Fields outside MISP's format: one `extra_forbidden` issue each, located at the field. */
  known(o: Json, allowed: Set<string>, loc: Loc): void {
    for (const key of Object.keys(o)) {
      if (!allowed.has(key)) this.issues.add([...loc, key], "Unknown field", undefined, "extra_forbidden");
    }
  }

  date(v: unknown, loc: Loc): string {
    if (v === undefined || v === null || v === "") return new Date().toISOString().slice(0, 10);
    if (typeof v !== "string" || !isCalendarDate(v)) {
      this.issues.add(loc, "Must be a date YYYY-MM-DD", v);
      return new Date().toISOString().slice(0, 10);
    }
    return v;
  }

  datetime(v: unknown, loc: Loc): Date | null {
    if (v === undefined || v === null || v === "") return null;
    const d = typeof v === "string" ? new Date(v) : typeof v === "number" ? new Date(v > 1e11 ? v / 1000 : v * 1000) : new Date(NaN);
    // Years 1..9999: what PostgreSQL's timestamptz and MISP both take (beyond that the INSERT failed with a 500).
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) {
      this.issues.add(loc, "Must be an ISO 8601 timestamp", v);
      return null;
    }
    return d;
  }

  list(v: unknown, loc: Loc): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.issues.add(loc, "Must be a list", typeof v);
      return [];
    }
    return v;
  }

  tags(v: unknown, loc: Loc): TagDraft[] {
    const list = this.list(v, loc);
    if (list.length > IMPORT_LIMITS.tagsPerEntity) {
      this.issues.add(loc, `At most ${IMPORT_LIMITS.tagsPerEntity} tags`);
      return [];
    }
    const seen = new Set<string>();
    const out: TagDraft[] = [];
    list.forEach((t, i) => {
      if (!isObject(t)) this.issues.add([...loc, i], "Expected a tag object");
      const tag = isObject(t) ? t : {};
      this.known(tag, KNOWN.tag, [...loc, i]);
      const name = this.string(tag.name, [...loc, i, "name"], { required: true, max: 255 });
      if (!name || !name.trim() || seen.has(name)) return;
      seen.add(name);
      const colour = typeof tag.colour === "string" && /^#[0-9a-fA-F]{3,8}$/.test(tag.colour) ? tag.colour : null;
      out.push({ name, colour, exportable: this.bool(tag.exportable, [...loc, i, "exportable"], true), local: this.bool(tag.local, [...loc, i, "local"], false) });
    });
    return out;
  }
}
