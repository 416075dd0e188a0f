/**
 * Prints a Lucene AST (`../lucene/ast.ts`) back to a query string that OpenSearch's `query_string`
 * parses into the same query, so the OpenSearch backend runs exactly the semantics `parseLucene`
 * validated: `parseLucene(printLucene(parseLucene(q)))` deep-equals `parseLucene(q)`.
 *
 * Why print instead of translating to the Query DSL: the AST documents OpenSearch's own
 * `query_string` semantics (analysis per field type, `>=x` ranges, `field:*` = exists, field
 * patterns such as `tags.*`, date math, CIDR terms on `ip` fields, normalised wildcards on text
 * fields, MultiTerm values). A DSL translation would have to re-implement each of those per field
 * type; printing lets OpenSearch apply them itself, so the only thing to get right is escaping.
 *
 * Output form (canonical, not the user's spelling):
 * - bool: clauses joined by spaces, `+x` must, `-x` must not, `x` should, in parentheses when nested;
 *   a should term without field is wrapped in `( )` so adjacent bare words are not re-joined into one
 *   MultiTerm (`(a) (b)` is two clauses; `a b` would be the single value "a b");
 * - term: every character of the query syntax is backslash-escaped, spaces included (`a\ b` is the
 *   MultiTerm value "a b"); wildcards print their normalised pattern with `*`/`?` bare;
 * - phrase: `"..."` with `"` and `\` escaped, `~slop` when non-zero; regex: `/pattern/` as written;
 * - range: `[lower TO upper]` / `{...}` with quoted bounds (`*` for an open bound), so one-sided
 *   `field:>=x` prints as `field:["x" TO *]` (same RangeNode, same OpenSearch range query);
 * - exists: `_exists_:field`; match-all: `*:*` (a bare `*` parses to match-all, which `*:*` keeps
 *   even when the default field is not `*`).
 */
import type { BoolNode, LuceneAst, LuceneNode, RangeNode, TermNode } from "../lucene/ast.ts";

/** Characters with a meaning in the query syntax (Lucene's escape list plus whitespace and a few extra). */
const SPECIAL = new Set([..."+-=&|><!(){}[]^\"~*?:\\/"]);

function isWhitespace(ch: string): boolean {
  return /\s/u.test(ch);
}

/** Escapes one character of a bare term or field name. Never escapes letters (a `\u` would be a unicode escape). */
function escapeChar(ch: string): string {
  return SPECIAL.has(ch) || isWhitespace(ch) ? `\\${ch}` : ch;
}

/** A bare term: every special character escaped; the keywords AND/OR/NOT/TO get an escaped first letter. */
export function escapeTerm(value: string): string {
  let out = "";
  for (const ch of value) out += escapeChar(ch);
  if (/^(AND|OR|NOT|TO)$/.test(value)) out = `\\${out}`;
  return out;
}

/** A field name: as a term, except that the all-fields name `*` stays bare (`*:foo`). */
export function escapeField(field: string): string {
  return field === "*" ? "*" : escapeTerm(field);
}

/** A wildcard pattern (`*`, `?` wildcards; `\*`, `\?`, `\\` escapes; everything else literal). */
function printPattern(pattern: string): string {
  let out = "";
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\\" && i + 1 < chars.length) {
      out += `\\${chars[i + 1]}`;
      i += 1;
    } else if (ch === "*" || ch === "?") {
      out += ch;
    } else {
      out += escapeChar(ch);
    }
  }
  // A pattern spelling a keyword cannot happen (it holds a wildcard), but a lone `*` is "exists".
  return out;
}

function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function printNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const s = String(n);
  return s.includes("e") ? n.toFixed(20).replace(/0+$/, "") : s;
}

function boost(node: LuceneNode): string {
  return node.boost === undefined ? "" : `^${printNumber(node.boost)}`;
}

function fieldPrefix(field: string | null): string {
  return field === null ? "" : `${escapeField(field)}:`;
}

function printTerm(node: TermNode): string {
  if (node.wildcard) return `${fieldPrefix(node.field)}${printPattern(node.pattern)}${boost(node)}`;
  let fuzzy = "";
  if (node.fuzzy !== undefined) fuzzy = node.fuzzy === "auto" ? "~" : `~${node.fuzzy}`;
  return `${fieldPrefix(node.field)}${escapeTerm(node.value)}${fuzzy}${boost(node)}`;
}

function printBound(value: string | null): string {
  if (value === null) return "*";
  // A quoted bound cannot end with a backslash (`\"` would be an escaped quote): print it bare.
  if (value.endsWith("\\") && !/[\s\]}"]/u.test(value)) return value.replace(/\\/g, "\\\\");
  return quote(value);
}

function printRange(node: RangeNode): string {
  const open = node.includeLower ? "[" : "{";
  const close = node.includeUpper ? "]" : "}";
  return `${fieldPrefix(node.field)}${open}${printBound(node.lower)} TO ${printBound(node.upper)}${close}${boost(node)}`;
}

/** A should clause that could merge with a neighbouring bare word into one MultiTerm. */
function isBareWord(node: LuceneNode): boolean {
  return node.kind === "term" && node.field === null && !node.wildcard && node.fuzzy === undefined && node.boost === undefined;
}

function printBool(node: BoolNode, nested: boolean): string {
  const parts: string[] = [];
  for (const c of node.must) parts.push(`+${printNode(c, true)}`);
  for (const c of node.should) parts.push(isBareWord(c) ? `(${printNode(c, true)})` : printNode(c, true));
  for (const c of node.mustNot) parts.push(`-${printNode(c, true)}`);
  const body = parts.join(" ");
  if (node.boost !== undefined) return `(${body})${boost(node)}`;
  return nested ? `(${body})` : body;
}

function printNode(node: LuceneNode, nested: boolean): string {
  switch (node.kind) {
    case "term":
      return printTerm(node);
    case "phrase":
      return `${fieldPrefix(node.field)}${quote(node.value)}${node.slop > 0 ? `~${node.slop}` : ""}${boost(node)}`;
    case "regex":
      return `${fieldPrefix(node.field)}/${node.pattern}/${boost(node)}`;
    case "range":
      return printRange(node);
    case "exists":
      return `_exists_:${escapeTerm(node.field)}${boost(node)}`;
    case "matchAll":
      return node.boost === undefined ? "*:*" : `(*:*)${boost(node)}`;
    case "bool":
      return printBool(node, nested);
  }
}

/** The query string for an AST (see the module comment for the exact form). */
export function printLucene(ast: LuceneAst): string {
  return printNode(ast, false);
}
