import { z } from "zod";

/** Fields the areas' input contracts share, written once. */

/** Text a PostgreSQL text column takes: never a NUL byte, at most `max` characters. */
export const storedText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes("\0"), "must not contain NUL bytes");

/** A list's name filter: part of the `what`, case-insensitive, at most 255 characters. */
export const containsFilter = (what: string) => storedText(255).optional().describe(`Part of the ${what}, case-insensitive (at most 255 characters)`);
