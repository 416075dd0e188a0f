/** What the API takes in one lookup (lookupIndicators refuses more, 422). */
export const MAX_VALUES = 1_000;
export const MAX_LENGTH = 1_024;

/** The pasted text as values to look up: one per line, trimmed, blanks and repeats left out. */
export function valuesOf(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== ""))];
}

/** Why these values cannot be sent, or null. */
export function problemOf(values: string[]): string | null {
  if (values.length === 0) return "Paste at least one indicator.";
  if (values.length > MAX_VALUES) return `At most ${MAX_VALUES.toLocaleString("en")} indicators at once (${values.length.toLocaleString("en")} given).`;
  const long = values.findIndex((v) => v.length > MAX_LENGTH);
  if (long >= 0) return `Indicator ${long + 1} is longer than ${MAX_LENGTH.toLocaleString("en")} characters.`;
  if (values.some((v) => v.includes("\u0000"))) return "Indicators must not contain NUL characters.";
  return null;
}
