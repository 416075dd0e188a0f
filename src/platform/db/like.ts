/** A LIKE/ILIKE pattern matching values that contain `s` literally (`%`, `_` and `\` escaped). */
export const containsPattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
