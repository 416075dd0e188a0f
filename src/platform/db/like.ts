/** `s` with LIKE's wildcards (`%`, `_`) and its escape character (a backslash) escaped: matched literally. */
export const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE/ILIKE pattern matching values that contain `s` literally. */
export const containsPattern = (s: string) => `%${likeLiteral(s)}%`;
