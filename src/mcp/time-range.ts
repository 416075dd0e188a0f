import { z } from "zod";
import { errors } from "../platform/errors.ts";
import { parseBound } from "../modules/search/index.ts";

/** 9999-12-31T23:59:59Z, as the Explore export's bounds. */
const MAX_EPOCH_SECONDS = 253_402_300_799;

const bound = (side: "from" | "to") =>
  z
    .union([z.string().min(1).max(64), z.number().int().min(0).max(MAX_EPOCH_SECONDS)])
    .optional()
    .describe(
      `${side === "from" ? "Earliest" : "Latest"} @timestamp (last change), inclusive: epoch seconds (1700000000), a date ` +
        `(2024-01-31: ${side === "from" ? "its first" : "its last"} millisecond, UTC) or an ISO 8601 date and time (2024-01-31T10:00:00Z).`,
    );

/** The optional time range of the search tools, the Explore export's `from` / `to`. */
export const timeRangeShape = { from: bound("from"), to: bound("to") };

export interface TimeRange {
  from?: Date;
  to?: Date;
}

/** Parses the bounds as the Explore export does (`parseBound`); 422 naming the argument otherwise. */
export function timeRangeOf(args: { from?: string | number; to?: string | number }): TimeRange {
  const parse = (name: "from" | "to"): Date | undefined => {
    const value = args[name];
    if (value === undefined) return undefined;
    const instant = parseBound(String(value), name === "to");
    if (instant === null) throw errors.invalidField(["arguments", name], "must be epoch seconds, a date (YYYY-MM-DD) or an ISO 8601 date and time", value);
    return instant;
  };
  const range = { from: parse("from"), to: parse("to") };
  if (range.from && range.to && range.from.getTime() > range.to.getTime()) throw errors.invalidField(["arguments", "from"], "must not be after to", args.from);
  return range;
}
