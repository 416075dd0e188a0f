/** Why a query was rejected. */
export type LuceneSyntaxErrorCode =
  /** The grammar does not accept the input (unbalanced brackets/quotes, dangling operator, ...). */
  | 'syntax'
  /** Bad backslash escape: trailing `\`, or `\u` not followed by 4 hex digits. */
  | 'invalid_escape'
  /** `term~x` where x is neither empty, a number nor AUTO. */
  | 'invalid_fuzziness'
  /** `/.../` body that Lucene's RegExp parser rejects (OpenSearch fails the query). */
  | 'invalid_regex'
  /** A field name OpenSearch cannot resolve (only dots, e.g. `.:x`). */
  | 'invalid_field'
  /** Control character (C0/C1 other than tab, CR, LF) or unpaired surrogate. */
  | 'control_character'
  | 'query_too_long'
  | 'too_many_clauses'
  | 'too_deep'
  | 'regex_too_long';

export interface LucenePosition {
  /** 0-based UTF-16 offset into the query. */
  offset: number;
  /** 1-based line (lines are separated by "\n"). */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
}

/** Thrown by parseLucene() for every rejected query. */
export class LuceneSyntaxError extends Error {
  override readonly name = 'LuceneSyntaxError';
  readonly code: LuceneSyntaxErrorCode;
  readonly offset: number;
  readonly line: number;
  readonly column: number;

  constructor(code: LuceneSyntaxErrorCode, message: string, position: LucenePosition) {
    super(message);
    this.code = code;
    this.offset = position.offset;
    this.line = position.line;
    this.column = position.column;
  }
}

/** Line/column of `offset` in `text` (same convention as peggy). */
export function positionAt(text: string, offset: number): LucenePosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < clamped; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { offset: clamped, line, column: clamped - lineStart + 1 };
}
