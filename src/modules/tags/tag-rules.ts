import { InputError, parseInput } from "../../platform/errors.ts";
import type { Loc } from "../attributes/index.ts";
import { tagName } from "./tags.contracts.ts";

/** The contract's rule for a single name (path parameters, tagging by name): throws the 422 at `loc`. */
export function checkTagName(name: string, loc: Loc): string {
  try {
    return parseInput(tagName, name);
  } catch (err) {
    throw err instanceof InputError ? err.within(loc) : err;
  }
}
