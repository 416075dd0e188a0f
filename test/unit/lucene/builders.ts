/**
 * Tiny constructors for expected ASTs.  They only fill in what the AST always
 * contains, so `toStrictEqual` still checks the exact shape (optional keys
 * such as boost/fuzzy are passed explicitly through `extra`).
 */
import type {
  BoolNode,
  ExistsNode,
  LuceneNode,
  MatchAllNode,
  PhraseNode,
  PlainTermNode,
  RangeNode,
  RegexNode,
  WildcardTermNode,
} from '../../../src/search/lucene/ast.ts';

type Extra<T> = Partial<Omit<T, 'kind'>>;

export function term(field: string | null, value: string, extra: Extra<PlainTermNode> = {}): PlainTermNode {
  return { kind: 'term', field, value, wildcard: false, ...extra };
}

export function wild(
  field: string | null,
  value: string,
  pattern: string = value,
  extra: { boost?: number } = {},
): WildcardTermNode {
  return { kind: 'term', field, value, wildcard: true, pattern, ...extra };
}

export function phrase(field: string | null, value: string, slop = 0, extra: { boost?: number } = {}): PhraseNode {
  return { kind: 'phrase', field, value, slop, ...extra };
}

export function regex(field: string | null, pattern: string, extra: { boost?: number } = {}): RegexNode {
  return { kind: 'regex', field, pattern, ...extra };
}

export function range(
  field: string | null,
  lower: string | null,
  upper: string | null,
  includeLower: boolean,
  includeUpper: boolean,
  extra: { boost?: number } = {},
): RangeNode {
  return { kind: 'range', field, lower, upper, includeLower, includeUpper, ...extra };
}

export function exists(field: string, extra: { boost?: number } = {}): ExistsNode {
  return { kind: 'exists', field, ...extra };
}

export function matchAll(extra: { boost?: number } = {}): MatchAllNode {
  return { kind: 'matchAll', ...extra };
}

export function bool(
  parts: { must?: LuceneNode[]; should?: LuceneNode[]; mustNot?: LuceneNode[] },
  extra: { boost?: number } = {},
): BoolNode {
  return { kind: 'bool', must: parts.must ?? [], should: parts.should ?? [], mustNot: parts.mustNot ?? [], ...extra };
}

/** should[...] of plain default-field terms. */
export function anyOf(...nodes: LuceneNode[]): BoolNode {
  return bool({ should: nodes });
}

/** must[...] */
export function allOf(...nodes: LuceneNode[]): BoolNode {
  return bool({ must: nodes });
}
