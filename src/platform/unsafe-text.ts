import type { ValidationIssue } from "./errors.ts";

const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A 422 lists at most this many bad values: enough to fix a request, not a second copy of it. */
const MAX_ISSUES = 20;

/**
 * Why a string cannot be stored, or null. PostgreSQL refuses NUL in text and jsonb (a 500 at the
 * first INSERT), and an unpaired UTF-16 surrogate is no Unicode text: jsonb refuses it and UTF-8
 * encoding silently turns it into U+FFFD.
 */
export function unsafeTextReason(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes("\u0000")) return "must not contain a NUL character (U+0000)";
  return LONE_SURROGATE.test(s) ? "must not contain an unpaired UTF-16 surrogate" : null;
}

/** A container being walked; its location is rebuilt from the parents only when a value is bad. */
interface Frame {
  value: object;
  key: string | number;
  parent: Frame | null;
}

function locOf(frame: Frame, where: (string | number)[], key: string | number): (string | number)[] {
  const keys = [key];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) keys.push(f.key);
  return [...where, ...keys.reverse()];
}

/**
 * Plain data only (parsed JSON, query strings, forms), never a stream, buffer or upload handle: an
 * array, or an object whose prototype is Object's, none, or a dictionary prototype of its own
 * without Object's methods (fast-querystring's, as Fastify parses query strings).
 */
function isPlainData(v: unknown): v is object {
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * The strings and object keys of a parsed request part that cannot be stored, located as a 422
 * locates them (`loc` starts with `where`). Walks with its own stack and builds a location only for
 * a bad value, so a body nested 100 000 levels deep costs one pass, not one copy per level.
 */
export function findUnsafeText(value: unknown, where: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof value === "string") {
    const why = unsafeTextReason(value);
    if (why) issues.push({ type: "value_error", loc: where, msg: why });
    return issues;
  }
  if (!isPlainData(value)) return issues;
  const stack: Frame[] = [{ value, key: "", parent: null }];
  const visit = (frame: Frame, key: string | number, child: unknown) => {
    if (typeof key === "string") {
      const why = unsafeTextReason(key);
      if (why) issues.push({ type: "value_error", loc: locOf(frame, where, key), msg: `the field name ${why}` });
    }
    if (typeof child === "string") {
      const why = unsafeTextReason(child);
      if (why) issues.push({ type: "value_error", loc: locOf(frame, where, key), msg: why });
    } else if (isPlainData(child)) {
      stack.push({ value: child, key, parent: frame });
    }
  };
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const frame = stack.pop()!;
    const container = frame.value;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) visit(frame, i, container[i]);
    } else {
      for (const [key, child] of Object.entries(container)) visit(frame, key, child);
    }
  }
  return issues.slice(0, MAX_ISSUES);
}
