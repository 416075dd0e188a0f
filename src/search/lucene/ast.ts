/**
 * Typed AST for Lucene classic query syntax (OpenSearch `query_string`).
 *
 * Produced by `parseLucene()` (parse.ts).  All string values have their
 * backslash escapes resolved (`http\:\/\/x` -> `http://x`, `\u00e9` -> `é`);
 * the only exceptions are `TermNode.pattern` (wildcard syntax) and
 * `RegexNode.pattern` (Lucene RegExp syntax), which keep the escapes that
 * are meaningful to their own syntax.
 *
 * `field` is the unescaped field name, or null for "the default field(s)"
 * (OpenSearch: `default_field` / `fields`, usually `*`).  A field may be `*`
 * (`*:foo`, all fields) or contain `*` when it was written escaped
 * (`tags.\*:foo` -> `tags.*`), which OpenSearch treats as a field pattern.
 * A field written as `field:( ... )` is pushed down onto every leaf inside.
 *
 * Term values are the text OpenSearch hands to the field's analyser, not
 * necessarily single tokens.  In particular ADJACENT BARE WORDS ARE ONE TERM:
 * `a b c` (no operator, modifier, field, wildcard, `^`/`~` between or after
 * them, and not followed by AND/OR/`*`) is `{kind:'term', value:'a b c'}` -
 * Lucene's MultiTerm rule, which OpenSearch uses (split_on_whitespace=false).
 * On text fields the analyser splits it again (OR of the tokens with
 * default_operator OR); on keyword/ip/numeric fields it is ONE exact value,
 * so `type:(md5 sha1)` matches nothing in OpenSearch (and fails on an ip
 * field), whereas `type:(md5 OR sha1)` is a bool of two terms.
 *
 * `boost` is only present when written (`^2`); boosts on a parenthesised
 * group that collapses into a single node are multiplied into that node.
 *
 * ## Boolean semantics (identical to Lucene's classic QueryParser, which
 * OpenSearch's query_string uses, with default_operator OR)
 *
 * Every parenthesised group (and the whole query) is ONE flat clause list;
 * there is no operator precedence.  Each clause gets an occurrence:
 *   - `+x`                      -> must
 *   - `-x`, `!x`, `NOT x`       -> mustNot
 *   - `a AND x` / `a && x`      -> x is must, and the PREVIOUS clause `a` becomes
 *                                  must too (unless it is already mustNot)
 *   - otherwise (implicit, `OR`, `||`) -> should
 * e.g. `a AND b OR c` -> must[a,b] should[c]  (c only affects scoring),
 *      `a OR b AND c` -> must[b,c] should[a],
 *      `a OR NOT b`   -> should[a] mustNot[b]  (= a AND NOT b),
 *      `a b -c +d`    -> must[d] should[a,b] mustNot[c].
 * There is deliberately NO precedence (NOT > AND > OR would read `a AND b OR c`
 * as `(a AND b) OR c`); both readings agree whenever AND and OR are not mixed
 * in one group without parentheses.  Verified against OpenSearch 2.19 by
 * comparing hit sets of 5 000 random queries (0 differences).
 * With `defaultOperator: 'AND'` the Lucene AND-mode rule is used instead:
 * clauses are must unless introduced by OR (OR also turns the previous
 * clause into should) or prohibited.
 *
 * A group holding a single clause that is not prohibited (`(a)`, `+a`) is
 * replaced by that clause; nested groups are otherwise kept as nested bools.
 *
 * ## Matching a BoolNode (Lucene BooleanQuery + OpenSearch rules)
 *   - every `must` clause matches, and no `mustNot` clause matches, and
 *   - if `must` is empty and `should` is not: at least one `should` matches
 *     (if `must` is non-empty, `should` clauses are optional / scoring only);
 *   - if `must` and `should` are both empty (only `mustNot`), the bool matches
 *     every document not matched by `mustNot` (OpenSearch adds an implicit
 *     match_all to purely negative groups, also nested ones).
 */

export type LuceneAst = LuceneNode;

export type LuceneNode =
  | TermNode
  | PhraseNode
  | RegexNode
  | RangeNode
  | ExistsNode
  | MatchAllNode
  | BoolNode;

export type LuceneNodeKind = LuceneNode['kind'];

interface BoostableNode {
  /** Present only when a boost was written (`^2`, `(a b)^0.5`). */
  boost?: number;
}

/** A single term without unescaped wildcards: `md5:1216da2b...`, `ip\:6`. */
export interface PlainTermNode extends BoostableNode {
  kind: 'term';
  field: string | null;
  /** Unescaped value. */
  value: string;
  wildcard: false;
  /**
   * Fuzzy edit distance (`term~` -> 'auto', `term~1` -> 1; OpenSearch caps
   * the distance at 2 and drops fractions, so `~5` -> 2 and `~1.5` -> 1).
   */
  fuzzy?: number | 'auto';
}

/**
 * A term with at least one unescaped `*` or `?` (`*.evil.com`, `mal?are`).
 * `value` is the unescaped text (escaped and unescaped `*` look the same);
 * `pattern` is the Lucene wildcard pattern in normalised form: `*` = any
 * sequence, `?` = one character, and `\*`, `\?`, `\\` are the only escapes
 * (every other character is literal).  Fuzzy suffixes are ignored (as in
 * Lucene).  `field:*` is not a term but an `exists` node.
 */
export interface WildcardTermNode extends BoostableNode {
  kind: 'term';
  field: string | null;
  value: string;
  wildcard: true;
  pattern: string;
}

export type TermNode = PlainTermNode | WildcardTermNode;

/** `"a b c"`, `"a b"~2` (slop = max positions between the words). */
export interface PhraseNode extends BoostableNode {
  kind: 'phrase';
  field: string | null;
  /** Unescaped text between the quotes (may be empty or contain spaces/quotes). */
  value: string;
  /** 0 unless written (`~2`); `"a b"~` and non-numeric slops are 0 (Lucene). */
  slop: number;
}

/**
 * `/[a-z]+\.pro/`: `pattern` is the body between the slashes exactly as
 * written, in Lucene RegExp syntax (anchored at both ends, `\/` = `/`,
 * operators `| * + ? {n,m} [] () . ~ & @ # <n-m>`).  Its syntax has been
 * checked (regexp.ts) the way OpenSearch's Lucene RegExp parser does.
 */
export interface RegexNode extends BoostableNode {
  kind: 'regex';
  field: string | null;
  pattern: string;
}

/**
 * `[a TO b]`, `{a TO b}`, `[a TO b}`, `[* TO b]`, and the one-sided forms
 * `field:>=x` (lower, inclusive), `field:>x`, `field:<=x`, `field:<x`.
 * Bounds are unescaped strings and are not interpreted (dates, date math
 * such as `now-5y/y` or `2024-01-01||+1M/d`, numbers, IPs are the consumer's
 * job).  An open bound is null and then its `include*` flag is false.
 */
export interface RangeNode extends BoostableNode {
  kind: 'range';
  field: string | null;
  lower: string | null;
  upper: string | null;
  includeLower: boolean;
  includeUpper: boolean;
}

/** `_exists_:field` or `field:*` (the field has a value). */
export interface ExistsNode extends BoostableNode {
  kind: 'exists';
  field: string;
}

/**
 * Empty query, `*:*`, or a bare `*`.  A bare `*` is match-all only when the
 * OpenSearch default_field is `*` (the stock setting); with a specific
 * default field OpenSearch treats it as "that field exists".  OpenSearch
 * itself returns NO hits for an empty query_string: send match_all instead.
 */
export interface MatchAllNode extends BoostableNode {
  kind: 'matchAll';
}

/** See "Matching a BoolNode" above.  At least one list is non-empty. */
export interface BoolNode extends BoostableNode {
  kind: 'bool';
  must: LuceneNode[];
  should: LuceneNode[];
  mustNot: LuceneNode[];
}
