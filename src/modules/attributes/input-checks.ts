import { InputError, type ValidationIssue } from "../../platform/errors.ts";

/** Where a field sits in a service's input, in its own vocabulary: `["attributes", 3, "value"]` (adapters add the location). */
export type Loc = (string | number)[];

const MAX_ISSUES = 100;

/** Shortens an offending input before it is echoed in a 422 (a 100 kB value is not sent back). */
export function clip(v: unknown): unknown {
  if (typeof v === "string" && v.length > 200) return `${v.slice(0, 200)}…`;
  return v;
}

/**
 * Collects every validation problem of one request, so that a client fixing a 50-attribute object
 * sees all of them at once; `throwIfAny` turns them into one 422 (nothing has been written yet).
 */
export class Issues {
  readonly list: ValidationIssue[] = [];

  add(loc: Loc, msg: string, input?: unknown): void {
    if (this.list.length < MAX_ISSUES) this.list.push({ type: "value_error", loc, msg, ...(input !== undefined ? { input: clip(input) } : {}) });
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  throwIfAny(): void {
    if (this.list.length) throw new InputError(this.list);
  }
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Text for a PostgreSQL `text` column: never a NUL byte (PostgreSQL refuses it), at most `max`
 * characters; `singleLine` also refuses control characters (names, tags, relations).
 */
export function checkText(issues: Issues, loc: Loc, v: string, max: number, opts: { singleLine?: boolean; nonEmpty?: boolean } = {}): void {
  if (v.includes("\0")) issues.add(loc, "must not contain NUL bytes");
  else if (opts.singleLine && CONTROL.test(v)) issues.add(loc, "must not contain control characters", v);
  if (v.length > max) issues.add(loc, `must be at most ${max} characters`, v.length);
  if (opts.nonEmpty && v.trim() === "") issues.add(loc, "must not be empty", v);
}

export function checkIntRange(issues: Issues, loc: Loc, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) issues.add(loc, `must be an integer from ${min} to ${max}`, v);
}

const MAX_DATE = Date.UTC(9999, 11, 31, 23, 59, 59);

export function checkDate(issues: Issues, loc: Loc, d: Date | null | undefined): void {
  if (d == null) return;
  const t = d.getTime();
  if (Number.isNaN(t) || t < 0 || t > MAX_DATE) issues.add(loc, "must be a time between 1970 and 9999");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkUuidField(issues: Issues, loc: Loc, v: string): string {
  if (!UUID.test(v)) issues.add(loc, "Invalid UUID", v);
  return v.toLowerCase();
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
