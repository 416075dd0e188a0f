import type { z } from "zod";
import { InputError, parseInput } from "../platform/errors.ts";

/**
 * A GraphQL input object checked against a service's contract. GraphQL has one null for two
 * meanings: where the contract takes null it means "clear", elsewhere "not given". `at`: where this
 * object sits in a larger input (an object's attributes), for the error's path.
 */
export function contractInput<T extends z.ZodObject>(contract: T, input: object, at: (string | number)[] = []): z.output<T> {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === null && !(contract.shape[key] as z.ZodType | undefined)?.safeParse(null).success) continue;
    given[key] = value;
  }
  try {
    return parseInput(contract, given);
  } catch (err) {
    throw err instanceof InputError && at.length ? err.within(at) : err;
  }
}
