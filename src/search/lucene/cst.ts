/**
 * Concrete syntax tree produced by the peggy grammar (grammar.peggy).
 * Raw token images: escapes are NOT resolved here.  Consumed only by parse.ts.
 */

/** `start`/`end` are UTF-16 offsets into the query string. */
export interface CstSpan {
  start: number;
  end: number;
}

export interface CstQuery {
  type: 'query';
  /** Never empty. */
  items: CstItem[];
}

export interface CstItem {
  /** Explicit conjunction before this clause (`AND`/`&&`, `OR`/`||`); null = implicit. */
  conj: 'AND' | 'OR' | null;
  /** `+`, `-`, or `NOT`/`!`. */
  mod: '+' | '-' | 'NOT' | null;
  clause: CstClause;
}

interface CstClauseBase extends CstSpan {
  /** Raw field token (`field:`), `*` for `*:`; null when absent. */
  field: string | null;
  /** Offset of the clause including its field prefix. */
  clauseStart: number;
  /** Raw boost number (`^2.5` -> "2.5"). */
  boost: string | null;
}

export interface CstGroup extends CstClauseBase {
  type: 'group';
  query: CstQuery;
}

/** TERM / STAR / PREFIXTERM / WILDTERM / BAREOPER token. */
export interface CstWord extends CstClauseBase {
  type: 'word';
  image: string;
  /** Contains an unescaped `*` or `?`. */
  wildcard: boolean;
  /** Lucene BAREOPER: a lone `+`, `-` or `!` followed by whitespace. */
  bare: boolean;
  /** Text after `~` (possibly ""); null when there is no `~`. */
  fuzzy: string | null;
}

export interface CstPhrase extends CstClauseBase {
  type: 'phrase';
  /** Between the quotes, escapes kept. */
  image: string;
  fuzzy: string | null;
}

export interface CstRegex extends CstClauseBase {
  type: 'regex';
  /** Between the slashes, as written. */
  image: string;
  fuzzy: string | null;
}

export interface CstRangeValue {
  quoted: boolean;
  image: string;
}

export interface CstRange extends CstClauseBase {
  type: 'range';
  lower: CstRangeValue;
  upper: CstRangeValue;
  includeLower: boolean;
  includeUpper: boolean;
}

export type CstClause = CstGroup | CstWord | CstPhrase | CstRegex | CstRange;
