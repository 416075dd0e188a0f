/**
 * parseLucene(): Lucene classic query syntax (OpenSearch `query_string`)
 * -> typed AST (ast.ts).  The semantics of the produced tree, in particular
 * how `AND`/`OR`/`NOT`/`+`/`-` are normalised, are documented in ast.ts.
 *
 * Pipeline: limits + character checks -> peggy grammar (grammar.peggy,
 * produces a raw CST, enforces nesting depth while parsing) -> AstBuilder
 * (escapes, OpenSearch special cases, MultiTerm joining, bool normalisation,
 * Lucene RegExp syntax check, clause limit).
 */
import type {
  BoolNode,
  ExistsNode,
  LuceneAst,
  LuceneNode,
  MatchAllNode,
  PhraseNode,
  RangeNode,
  RegexNode,
  TermNode,
} from './ast.ts';
import type { CstClause, CstItem, CstPhrase, CstQuery, CstRange, CstRangeValue, CstRegex, CstWord } from './cst.ts';
import { LuceneSyntaxError, positionAt, type LuceneSyntaxErrorCode } from './errors.ts';
import { parse as parseCst, SyntaxError as GeneratedSyntaxError } from './parser.generated.js';
import { checkLuceneRegex } from './regexp.ts';

export { LuceneSyntaxError, type LuceneSyntaxErrorCode, type LucenePosition } from './errors.ts';

export interface ParseLuceneOptions {
  /** Maximum query length in UTF-16 code units (default 10 000). */
  maxLength?: number;
  /**
   * Maximum number of leaf queries (terms, phrases, regexes, ranges,
   * exists, match-all) in the whole tree (default 1024, Lucene's
   * maxClauseCount / OpenSearch indices.query.bool.max_clause_count).
   */
  maxClauses?: number;
  /** Maximum parenthesis nesting depth, field groups included (default 32). */
  maxDepth?: number;
  /** Maximum length of a `/regex/` body (default 256). */
  maxRegexLength?: number;
  /** Operator between clauses without AND/OR (default 'OR', as OpenSearch). */
  defaultOperator?: 'OR' | 'AND';
}

type ResolvedOptions = Required<ParseLuceneOptions>;

export const LUCENE_DEFAULT_OPTIONS: Readonly<ResolvedOptions> = Object.freeze({
  maxLength: 10_000,
  maxClauses: 1024,
  maxDepth: 32,
  maxRegexLength: 256,
  defaultOperator: 'OR',
});

/** Syntax features understood by parseLucene(), for user-facing docs. */
export const describeLuceneFeatures: readonly string[] = Object.freeze([
  'Terms: malware, 10.0.0.1, 1216da2b3d6e64075e8434be1058de06, evil.example.com, unicode (與天空有約)',
  'Field terms: type:ip-dst, tags.name:tlp\\:white, expanded.ip2geo.country_iso_code:RU, @timestamp:..., *:value',
  'Field groups: type:(md5 OR sha256) - the field applies to every term inside',
  'Quoted phrases with escapes: category:"Network activity", comment:"say \\"hi\\""',
  'Phrase proximity: "remote administration"~3',
  'Fuzzy terms: emotet~ (automatic distance), emotet~1 (distance 0-2)',
  'Boost: apt28^2, "cobalt strike"^1.5, (a OR b)^3',
  'Wildcards * and ? anywhere in a term, also leading: *.evil.com, mal?are, CVE-2023-*',
  'Exists: _exists_:field and field:*; match all: *:*, * or an empty query',
  'Regular expressions (Lucene RegExp syntax): url:/https?:\\/\\/[a-z]+\\.pro\\/.*/',
  'Boolean operators AND OR NOT and && || !, default operator OR (Lucene/OpenSearch semantics, no precedence: use parentheses when mixing AND and OR)',
  'Adjacent words without an operator are searched as one text: type:(md5 sha1) is the single value "md5 sha1"; use type:(md5 OR sha1)',
  'Required / prohibited prefixes on terms, phrases, ranges and groups: +term -term -"phrase" -(a OR b) +(a b)',
  'Grouping with parentheses, nested up to the depth limit',
  'Ranges: [a TO b] inclusive, {a TO b} exclusive, mixed [a TO b}, open ends with *: [100 TO *]',
  'One-sided ranges on a field: size:>=100, size:>100, @timestamp:<=now-7d, date:<2024-01-01',
  'Date math values are passed through: now-7d, now-5y/y (in [..]), 2024-01-01||+1M/d',
  'Backslash escapes for special characters: \\: \\/ \\- \\+ \\( \\) \\" \\* \\? \\\\ \\  (space), \\uXXXX',
  'Limits: query length, number of clauses, nesting depth, regex length',
]);

/**
 * Parses a query string.  Empty / whitespace-only input is `{kind:'matchAll'}`.
 * @throws LuceneSyntaxError for any rejected input (see `code`).
 */
export function parseLucene(query: string, opts: ParseLuceneOptions = {}): LuceneAst {
  if (typeof query !== 'string') throw new TypeError('parseLucene: query must be a string');
  const o = resolveOptions(opts);

  if (query.length > o.maxLength) {
    throw syntaxError(
      query,
      'query_too_long',
      `Query is too long: ${query.length} characters (maximum ${o.maxLength})`,
      o.maxLength,
    );
  }
  const bad = findInvalidCharacter(query);
  if (bad !== -1) {
    throw syntaxError(query, 'control_character', `${describeInvalidChar(query, bad)} is not allowed in a query`, bad);
  }

  let cst: CstQuery | null;
  try {
    cst = parseCst(query, {
      maxDepth: o.maxDepth,
      onTooDeep: (offset: number): never => {
        throw syntaxError(query, 'too_deep', `Query is nested too deeply (maximum ${o.maxDepth} levels of parentheses)`, offset);
      },
    });
  } catch (err) {
    if (err instanceof LuceneSyntaxError) throw err;
    if (err instanceof GeneratedSyntaxError) throw fromGeneratedError(query, err);
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      // Should be unreachable thanks to maxDepth; never let it escape as a crash.
      throw syntaxError(query, 'too_deep', 'Query is nested too deeply', 0);
    }
    throw err;
  }
  if (cst === null) return { kind: 'matchAll' };
  return new AstBuilder(query, o).query(cst, null);
}

function resolveOptions(opts: ParseLuceneOptions): ResolvedOptions {
  const o = { ...LUCENE_DEFAULT_OPTIONS };
  const limits = ['maxLength', 'maxClauses', 'maxDepth', 'maxRegexLength'] as const;
  for (const key of limits) {
    const v = opts[key];
    if (v === undefined) continue;
    if (!Number.isInteger(v) || v < (key === 'maxLength' || key === 'maxClauses' ? 1 : 0)) {
      throw new RangeError(`parseLucene: invalid ${key}: ${String(v)}`);
    }
    o[key] = v;
  }
  if (opts.defaultOperator !== undefined) {
    if (opts.defaultOperator !== 'OR' && opts.defaultOperator !== 'AND') {
      throw new RangeError(`parseLucene: invalid defaultOperator: ${String(opts.defaultOperator)}`);
    }
    o.defaultOperator = opts.defaultOperator;
  }
  return o;
}

function syntaxError(text: string, code: LuceneSyntaxErrorCode, message: string, offset: number): LuceneSyntaxError {
  const pos = positionAt(text, offset);
  return new LuceneSyntaxError(code, `${message} (line ${pos.line}, column ${pos.column})`, pos);
}

// ---------------------------------------------------------------------------
// Character checks

function isForbiddenCode(c: number): boolean {
  // C0 controls except \t \n \r, DEL and C1 controls.
  return (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f);
}

/** Index of the first control character or unpaired surrogate, or -1. */
function findInvalidCharacter(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xa0) {
      if (isForbiddenCode(c)) return i;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (!(n >= 0xdc00 && n <= 0xdfff)) return i;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return i;
    }
  }
  return -1;
}

function describeInvalidChar(s: string, i: number): string {
  const c = s.charCodeAt(i);
  const hex = c.toString(16).toUpperCase().padStart(4, '0');
  return c >= 0xd800 && c <= 0xdfff ? `Unpaired surrogate U+${hex}` : `Control character U+${hex}`;
}

// ---------------------------------------------------------------------------
// Syntax errors from the generated parser -> readable messages

interface Expectation {
  type: string;
  text?: string;
  description?: string;
}

function describeExpectation(e: Expectation): string {
  if (e.type === 'literal') return `'${e.text ?? ''}'`;
  if (e.type === 'end') return 'end of query';
  if (e.type === 'any') return 'any character';
  if (e.type === 'class') return 'a digit';
  return e.description ?? e.type;
}

function fromGeneratedError(text: string, err: GeneratedSyntaxError): LuceneSyntaxError {
  const offset = err.location.start.offset;
  const found = err.found;
  const expected = [...new Set((err.expected ?? []).map(describeExpectation))];
  const list =
    expected.length <= 1 ? (expected[0] ?? 'nothing') : `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`;
  let message: string;
  if (found === null) {
    message = expected.includes("')'")
      ? "Unexpected end of query: missing closing ')'"
      : `Unexpected end of query, expected ${list}`;
  } else if (found === '"' && expected.includes('phrase')) {
    message = 'Unterminated phrase: missing closing \'"\'';
  } else if (found === '/' && expected.includes('regular expression')) {
    message = "Unterminated regular expression: missing closing '/' (escape a literal slash as '\\/')";
  } else if ((found === '[' || found === '{') && expected.includes('range')) {
    message = `Invalid range, expected '${found}lower TO upper${found === '[' ? ']' : '}'}' (']' or '}' to close)`;
  } else if (found === ')' && !expected.includes("')'")) {
    const before = text.slice(0, offset).trimEnd();
    message = before.endsWith('(')
      ? "Empty group '()'"
      : before.includes('(')
        ? `Unexpected ')', expected ${list}`
        : "Unexpected ')' without matching '('";
  } else if (found === ':') {
    message = "Unexpected ':' (escape a literal colon as '\\:' or quote the value)";
  } else if (found === ']' || found === '}') {
    message = `Unexpected '${found}' outside of a range`;
  } else if (found === '^') {
    message = /^\^[0-9]/.test(text.slice(offset))
      ? "Unexpected '^': only one boost is allowed, directly after a term, phrase, range or group"
      : "A boost '^' must be directly followed by a number, e.g. ^2 or ^0.5";
  } else {
    message = `Unexpected '${tokenAt(text, offset)}', expected ${list}`;
  }
  return syntaxError(text, 'syntax', message, offset);
}

/** The offending token for messages: a run of term-ish characters, or one character. */
function tokenAt(text: string, offset: number): string {
  const m = /^[^\s()[\]{}"/:^~]{1,40}/u.exec(text.slice(offset, offset + 40));
  return m ? m[0] : text.slice(offset, offset + 1);
}

// ---------------------------------------------------------------------------
// CST -> AST

type Occur = 'must' | 'should' | 'mustNot';

const HEX4 = /^[0-9a-fA-F]{4}$/;
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const MAX_INT = 2 ** 31 - 1;

class AstBuilder {
  private leaves = 0;

  constructor(
    private readonly text: string,
    private readonly o: ResolvedOptions,
  ) {}

  private fail(code: LuceneSyntaxErrorCode, message: string, offset: number): never {
    throw syntaxError(this.text, code, message, offset);
  }

  /** Lucene's QueryParser.Query() + addClause() (see ast.ts for the rules). */
  query(q: CstQuery, field: string | null): LuceneNode {
    const entries: { occur: Occur; node: LuceneNode }[] = [];
    const andMode = this.o.defaultOperator === 'AND';
    const items = q.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const run = multiTermRunLength(items, i);
      let node: LuceneNode;
      if (run > 1) {
        node = this.multiTerm(items.slice(i, i + run).map((it) => it.clause as CstWord), field);
        i += run - 1;
      } else {
        node = this.clause(item.clause, field);
      }
      const prev = entries.at(-1);
      if (prev && prev.occur !== 'mustNot') {
        if (item.conj === 'AND') prev.occur = 'must';
        else if (andMode && item.conj === 'OR') prev.occur = 'should';
      }
      const prohibited = item.mod === '-' || item.mod === 'NOT';
      const required = andMode
        ? !prohibited && item.conj !== 'OR'
        : item.mod === '+' || (item.conj === 'AND' && !prohibited);
      entries.push({ occur: prohibited ? 'mustNot' : required ? 'must' : 'should', node });
    }
    const only = entries.length === 1 ? entries[0] : undefined;
    if (only && only.occur !== 'mustNot') return only.node;
    const bool: BoolNode = { kind: 'bool', must: [], should: [], mustNot: [] };
    for (const e of entries) bool[e.occur].push(e.node);
    return bool;
  }

  private clause(c: CstClause, inherited: string | null): LuceneNode {
    const field = c.field === null ? inherited : this.fieldName(c.field, c.clauseStart);
    switch (c.type) {
      case 'group':
        return withBoost(this.query(c.query, field), c.boost);
      case 'word':
        return withBoost(this.leaf(this.word(c, field), c.clauseStart), c.boost);
      case 'phrase':
        return withBoost(this.leaf(this.phrase(c, field), c.clauseStart), c.boost);
      case 'regex':
        return withBoost(this.leaf(this.regex(c, field), c.clauseStart), c.boost);
      case 'range':
        return withBoost(this.leaf(this.range(c, field), c.clauseStart), c.boost);
    }
  }

  /**
   * Lucene's MultiTerm production (splitOnWhitespace=false, as in OpenSearch):
   * adjacent bare words are joined with one space and analysed as one text.
   */
  private multiTerm(words: CstWord[], field: string | null): TermNode | RangeNode | ExistsNode {
    for (const w of words) this.leaf(null, w.clauseStart);
    const raw = words.map((w) => w.image).join(' ');
    return textQuery(field, this.unescape(raw, words[0]!.start));
  }

  private leaf<T extends LuceneNode | null>(node: T, offset: number): T {
    this.leaves += 1;
    if (this.leaves > this.o.maxClauses) {
      this.fail('too_many_clauses', `Too many clauses: more than ${this.o.maxClauses}`, offset);
    }
    return node;
  }

  private fieldName(raw: string, offset: number): string {
    const name = this.unescape(raw, offset);
    // OpenSearch fails with an internal error on field names made only of dots.
    if (/^\.+$/.test(name)) this.fail('invalid_field', `Invalid field name '${name}'`, offset);
    return name;
  }

  /** Lucene handleBareTokenQuery() + OpenSearch getFieldQuery()/getWildcardQuery(). */
  private word(c: CstWord, field: string | null): TermNode | RangeNode | ExistsNode | MatchAllNode {
    const value = this.unescape(c.image, c.start);
    if (c.wildcard) {
      if (c.image === '*') {
        return field === null || field === '*' ? { kind: 'matchAll' } : { kind: 'exists', field };
      }
      return { kind: 'term', field, value, wildcard: true, pattern: wildcardPattern(c.image) };
    }
    if (c.fuzzy !== null) {
      return { kind: 'term', field, value, wildcard: false, fuzzy: this.fuzziness(c.fuzzy, c.start) };
    }
    return textQuery(field, value);
  }

  private phrase(c: CstPhrase, field: string | null): PhraseNode | ExistsNode {
    const value = this.unescape(c.image, c.start + 1);
    if (field === '_exists_') return { kind: 'exists', field: value };
    let slop = 0;
    if (c.fuzzy !== null && DECIMAL.test(c.fuzzy)) slop = Math.min(MAX_INT, Math.floor(Number(c.fuzzy)));
    return { kind: 'phrase', field, value, slop };
  }

  private regex(c: CstRegex, field: string | null): RegexNode {
    // Lucene runs discardEscapeChar() over every token image, the regex
    // included, so a malformed \u escape is an error here too.
    this.unescape(c.image, c.start + 1);
    if (c.image.length > this.o.maxRegexLength) {
      this.fail(
        'regex_too_long',
        `Regular expression is too long: ${c.image.length} characters (maximum ${this.o.maxRegexLength})`,
        c.start,
      );
    }
    const problem = checkLuceneRegex(c.image);
    if (problem) {
      this.fail('invalid_regex', `Invalid regular expression: ${problem.message}`, c.start + 1 + problem.position);
    }
    return { kind: 'regex', field, pattern: c.image };
  }

  private range(c: CstRange, field: string | null): RangeNode {
    const lower = this.rangeBound(c.lower, c.start);
    const upper = this.rangeBound(c.upper, c.start);
    return {
      kind: 'range',
      field,
      lower,
      upper,
      includeLower: lower !== null && c.includeLower,
      includeUpper: upper !== null && c.includeUpper,
    };
  }

  private rangeBound(v: CstRangeValue, offset: number): string | null {
    if (!v.quoted && v.image === '*') return null;
    const value = this.unescape(v.image, offset);
    // OpenSearch's getRangeQuery() treats "*" as open even when quoted/escaped.
    return value === '*' ? null : value;
  }

  /** OpenSearch handleBareFuzzy(): "" or AUTO -> auto, else min(2, (int) float). */
  private fuzziness(raw: string, offset: number): number | 'auto' {
    if (raw === '' || raw.toUpperCase() === 'AUTO') return 'auto';
    if (DECIMAL.test(raw)) return Math.min(2, Math.floor(Number(raw)));
    return this.fail('invalid_fuzziness', `Invalid fuzziness '~${raw}': use ~, ~AUTO, ~0, ~1 or ~2`, offset);
  }

  /** Lucene discardEscapeChar(): `\x` -> x, `\uXXXX` -> code unit. */
  private unescape(raw: string, offset: number): string {
    if (!raw.includes('\\')) return raw;
    let out = '';
    for (let i = 0; i < raw.length; i++) {
      const ch = raw[i]!;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      if (i + 1 >= raw.length) this.fail('invalid_escape', 'A term can not end with an escape character', offset + i);
      const next = raw[i + 1]!;
      if (next !== 'u') {
        out += next;
        i += 1;
        continue;
      }
      const hex = raw.slice(i + 2, i + 6);
      if (hex.length < 4) this.fail('invalid_escape', 'Truncated unicode escape sequence', offset + i);
      if (!HEX4.test(hex)) this.fail('invalid_escape', `Invalid unicode escape sequence '\\u${hex}'`, offset + i);
      const code = parseInt(hex, 16);
      if (isForbiddenCode(code)) {
        this.fail('control_character', `Control character U+${hex.toUpperCase()} is not allowed in a query`, offset + i);
      }
      out += String.fromCharCode(code);
      i += 5;
    }
    const bad = findInvalidCharacter(out);
    if (bad !== -1) this.fail('control_character', `${describeInvalidChar(out, bad)} is not allowed in a query`, offset);
    return out;
  }
}

/** A word Lucene lexes as a plain TERM token with nothing attached. */
function isPlainWord(item: CstItem | undefined): boolean {
  if (!item || item.conj !== null || item.mod !== null) return false;
  const c = item.clause;
  return c.type === 'word' && c.field === null && !c.wildcard && !c.bare && c.boost === null && c.fuzzy === null;
}

/**
 * Number of items starting at `i` that Lucene's MultiTerm joins (0 if none):
 * a plain TERM followed by plain TERMs, each of which must not be followed by
 * `AND`, `OR`, `*` or `*:` (`:`, `^` and `~` are excluded by isPlainWord).
 */
function multiTermRunLength(items: CstItem[], i: number): number {
  if (!isPlainWord(items[i])) return 0;
  let end = i + 1;
  while (isPlainWord(items[end]) && allowedAfterMultiTerm(items[end + 1])) end++;
  return end - i;
}

function allowedAfterMultiTerm(next: CstItem | undefined): boolean {
  if (!next) return true;
  if (next.conj !== null) return false;
  if (next.mod !== null) return true;
  const c = next.clause;
  return !(c.field === '*' || (c.type === 'word' && c.field === null && c.image === '*'));
}

/** OpenSearch getFieldQuery(field, text, quoted=false): `_exists_`, `>=x` etc., else a term. */
function textQuery(field: string | null, value: string): TermNode | RangeNode | ExistsNode {
  if (field === '_exists_') return { kind: 'exists', field: value };
  if (field !== null && value.length > 1) {
    if (value[0] === '>') {
      const inclusive = value.length > 2 && value[1] === '=';
      return oneSided(field, 'lower', value.slice(inclusive ? 2 : 1), inclusive);
    }
    if (value[0] === '<') {
      const inclusive = value.length > 2 && value[1] === '=';
      return oneSided(field, 'upper', value.slice(inclusive ? 2 : 1), inclusive);
    }
  }
  return { kind: 'term', field, value, wildcard: false };
}

function oneSided(field: string, side: 'lower' | 'upper', bound: string, inclusive: boolean): RangeNode {
  // OpenSearch getRangeQuery(): a "*" bound is open.
  const value = bound === '*' ? null : bound;
  const isLower = side === 'lower';
  return {
    kind: 'range',
    field,
    lower: isLower ? value : null,
    upper: isLower ? null : value,
    includeLower: isLower && value !== null && inclusive,
    includeUpper: !isLower && value !== null && inclusive,
  };
}

/** Raw wildcard token -> normalised pattern where only `\*`, `\?`, `\\` are escapes. */
function wildcardPattern(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    let literal: string;
    if (raw[i + 1] === 'u') {
      literal = String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      literal = raw[i + 1]!;
      i += 1;
    }
    out += literal === '*' || literal === '?' || literal === '\\' ? `\\${literal}` : literal;
  }
  return out;
}

function withBoost(node: LuceneNode, raw: string | null): LuceneNode {
  if (raw === null) return node;
  const boost = Number(raw) * (node.boost ?? 1);
  return { ...node, boost };
}

export type { LuceneAst, LuceneNode } from './ast.ts';
