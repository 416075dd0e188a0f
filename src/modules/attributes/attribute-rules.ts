import crypto from "node:crypto";
import {
  defaultCategoryFor,
  defaultToIdsFor,
  isCompositeType,
  isKnownType,
  isValidCategoryForType,
  splitComposite,
  validateAttributeValue,
} from "./catalogue/index.ts";
import type { AttributeView } from "./attribute-reader.ts";
import { checkDate, checkIntRange, checkText, checkUuidField, type Issues, type Loc } from "./input-checks.ts";

import type { AttributeCreate, AttributePatch } from "./attributes.contracts.ts";

export type { AttributeCreate, AttributePatch };

/** The fields of an attribute a client may set (those of a patch). */
export type AttributeFields = AttributePatch;

/** A validated attribute, ready for INSERT. */
export interface AttributeRow {
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
  firstSeen: Date | null;
  lastSeen: Date | null;
  deleted: boolean;
  disableCorrelation: boolean;
  objectRelation: string | null;
}

export const MAX_COMMENT = 65_535;
export const MAX_RELATION = 255;

interface TypedValue {
  type: string;
  category: string;
  value: string;
  value1: string;
  value2: string | null;
}

/**
 * The MISP rules for one (type, category, value): the type must be known, the category one the
 * type allows (default: the catalogue's), the value valid for the type; it is stored normalised,
 * composites split into value1|value2. Returns null (with issues added) when anything fails.
 */
export function checkTypedValue(issues: Issues, loc: Loc, type: string, category: string | undefined, value: string): TypedValue | null {
  if (!isKnownType(type)) {
    issues.add([...loc, "type"], `Unknown attribute type "${type.slice(0, 100)}"`, type);
    return null;
  }
  const cat = category ?? defaultCategoryFor(type)!;
  let ok = true;
  if (!isValidCategoryForType(type, cat)) {
    issues.add([...loc, "category"], `Category "${cat.slice(0, 100)}" is not valid for type "${type}"`, cat);
    ok = false;
  }
  const checked = validateAttributeValue(type, value);
  if (!checked.ok) {
    issues.add([...loc, "value"], checked.reason, value);
    return null;
  }
  if (!ok) return null;
  const normalised = checked.normalized;
  if (isCompositeType(type)) {
    const parts = splitComposite(type, normalised);
    if (!parts) {
      issues.add([...loc, "value"], `${type}: expected two parts separated by |`, value);
      return null;
    }
    return { type, category: cat, value: normalised, value1: parts[0].value, value2: parts[1].value };
  }
  return { type, category: cat, value: normalised, value1: normalised, value2: null };
}

/** Bounds shared by create and update (text lengths, NUL bytes, enum ranges, first/last seen). */
function checkCommonFields(issues: Issues, loc: Loc, f: AttributeFields): void {
  if (f.comment !== undefined) checkText(issues, [...loc, "comment"], f.comment, MAX_COMMENT);
  if (f.objectRelation != null) checkText(issues, [...loc, "objectRelation"], f.objectRelation, MAX_RELATION, { singleLine: true });
  if (f.category !== undefined) checkText(issues, [...loc, "category"], f.category, 255, { singleLine: true });
  if (f.type !== undefined) checkText(issues, [...loc, "type"], f.type, 255, { singleLine: true });
  if (f.distribution !== undefined) checkIntRange(issues, [...loc, "distribution"], f.distribution, 0, 5);
  if (f.sharingGroupId != null) checkIntRange(issues, [...loc, "sharingGroupId"], f.sharingGroupId, 1, 2_147_483_647);
  checkDate(issues, [...loc, "firstSeen"], f.firstSeen);
  checkDate(issues, [...loc, "lastSeen"], f.lastSeen);
}

function checkSeenOrder(issues: Issues, loc: Loc, first: Date | null, last: Date | null): void {
  if (first && last && last.getTime() < first.getTime()) issues.add([...loc, "lastSeen"], "last_seen must not be before first_seen");
}

/** Validates a new attribute; returns its row, or null with the problems added to `issues`. */
export function prepareNewAttribute(issues: Issues, loc: Loc, input: AttributeCreate): AttributeRow | null {
  const before = issues.list.length;
  checkCommonFields(issues, loc, input);
  const uuid = input.uuid === undefined ? crypto.randomUUID() : checkUuidField(issues, [...loc, "uuid"], input.uuid);
  checkSeenOrder(issues, loc, input.firstSeen ?? null, input.lastSeen ?? null);
  if (issues.list.length > before) return null;
  const typed = checkTypedValue(issues, loc, input.type, input.category, input.value);
  if (!typed) return null;
  return {
    uuid,
    ...typed,
    toIds: input.toIds ?? defaultToIdsFor(typed.type) ?? true,
    comment: input.comment ?? "",
    distribution: input.distribution ?? 5,
    sharingGroupId: input.sharingGroupId ?? null,
    firstSeen: input.firstSeen ?? null,
    lastSeen: input.lastSeen ?? null,
    deleted: input.deleted ?? false,
    disableCorrelation: input.disableCorrelation ?? false,
    objectRelation: input.objectRelation ?? null,
  };
}

/** Column changes of a PATCH, by column name (only the keys that change). */
export type AttributeChanges = Record<string, unknown>;

/**
 * Validates a patch against the stored attribute: type, category and value are re-checked
 * together whenever any of them is given. Returns the changed columns and field names.
 */
export function prepareAttributePatch(issues: Issues, loc: Loc, current: AttributeView, patch: AttributePatch): { columns: AttributeChanges; fields: string[] } | null {
  const before = issues.list.length;
  checkCommonFields(issues, loc, patch);
  const firstSeen = patch.firstSeen !== undefined ? patch.firstSeen : current.firstSeen;
  const lastSeen = patch.lastSeen !== undefined ? patch.lastSeen : current.lastSeen;
  checkSeenOrder(issues, loc, firstSeen, lastSeen);
  if (issues.list.length > before) return null;
  const columns: AttributeChanges = {};
  const fields: string[] = [];
  const set = (column: string, field: string, value: unknown, old: unknown) => {
    const same = value instanceof Date || old instanceof Date ? (value as Date | null)?.getTime() === (old as Date | null)?.getTime() : value === old;
    if (same) return;
    columns[column] = value;
    fields.push(field);
  };
  if (patch.type !== undefined || patch.category !== undefined || patch.value !== undefined) {
    const type = patch.type ?? current.type;
    // A new type keeps the stored category only when it allows it; otherwise the client says which.
    const category = patch.category ?? (patch.type !== undefined && !isValidCategoryForType(type, current.category) ? undefined : current.category);
    if (patch.category === undefined && category === undefined && isKnownType(type)) {
      issues.add([...loc, "category"], `Category "${current.category}" is not valid for type "${type}"; give a category`, current.category);
      return null;
    }
    const typed = checkTypedValue(issues, loc, type, category, patch.value ?? current.value);
    if (!typed) return null;
    set("type", "type", typed.type, current.type);
    set("category", "category", typed.category, current.category);
    set("value", "value", typed.value, current.value);
    if (typed.value !== current.value || typed.type !== current.type) {
      columns.value1 = typed.value1;
      columns.value2 = typed.value2;
    }
  }
  if (patch.toIds !== undefined) set("to_ids", "to_ids", patch.toIds, current.toIds);
  if (patch.comment !== undefined) set("comment", "comment", patch.comment, current.comment);
  if (patch.distribution !== undefined) set("distribution", "distribution", patch.distribution, current.distribution);
  if (patch.sharingGroupId !== undefined) set("sharing_group_id", "sharing_group_id", patch.sharingGroupId, current.sharingGroupId);
  if (patch.firstSeen !== undefined) set("first_seen", "first_seen", patch.firstSeen, current.firstSeen);
  if (patch.lastSeen !== undefined) set("last_seen", "last_seen", patch.lastSeen, current.lastSeen);
  if (patch.deleted !== undefined) set("deleted", "deleted", patch.deleted, current.deleted);
  if (patch.disableCorrelation !== undefined) set("disable_correlation", "disable_correlation", patch.disableCorrelation, current.disableCorrelation);
  if (patch.objectRelation !== undefined) set("object_relation", "object_relation", patch.objectRelation, current.objectRelation);
  return { columns, fields };
}
