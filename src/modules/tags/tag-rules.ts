import { checkText, Issues, type Loc } from "../attributes/index.ts";

export const MAX_TAG_NAME = 255;
export const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** A tag name: trimmed, 1..255 characters, no control characters (NUL bytes included). */
export function tagNameIssues(issues: Issues, loc: Loc, name: string): string {
  const trimmed = name.trim();
  checkText(issues, loc, trimmed, MAX_TAG_NAME, { singleLine: true, nonEmpty: true });
  return trimmed;
}

/** The same rule for a single name (path parameters): throws the 422 at once. */
export function checkTagName(name: string, loc: Loc): string {
  const issues = new Issues();
  const trimmed = tagNameIssues(issues, loc, name);
  issues.throwIfAny();
  return trimmed;
}

export function checkColour(issues: Issues, loc: Loc, colour: string): string {
  if (!COLOUR.test(colour)) issues.add(loc, "must be a colour #rrggbb", colour);
  return colour;
}
