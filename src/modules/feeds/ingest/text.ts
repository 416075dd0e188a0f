/** PostgreSQL stores no NUL character, and a lone surrogate cannot be encoded (jsonb refuses it). */
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Why a feed value cannot be stored as it is, or null. */
export function unstorable(value: string): string | null {
  if (value.includes("\u0000")) return "contains a NUL character";
  if (value.search(LONE_SURROGATE) !== -1) return "contains an unpaired surrogate";
  return null;
}

/** Text from a feed made safe to store in a run's result (NULs and lone surrogates become U+FFFD). */
export function printable(text: string): string {
  return text.replace(NUL, "\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}
