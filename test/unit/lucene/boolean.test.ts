/**
 * Operator semantics: Lucene classic QueryParser (flat clause list per group,
 * AND marks both neighbours required, NOT/- prohibit, +/- on any clause),
 * which is what OpenSearch query_string does with default_operator OR.
 */
import { describe, expect, it } from 'vitest';
import type { LuceneAst } from '../../../src/search/lucene/ast.ts';
import { parseLucene, type ParseLuceneOptions } from '../../../src/search/lucene/parse.ts';
import { allOf, anyOf, bool, phrase, range, term } from './builders.ts';

const a = term(null, 'a');
const b = term(null, 'b');
const c = term(null, 'c');
const d = term(null, 'd');

function check(cases: ReadonlyArray<readonly [string, LuceneAst]>, opts?: ParseLuceneOptions) {
  it.each(cases)('%s', (query, expected) => {
    expect(parseLucene(query, opts)).toStrictEqual(expected);
  });
}

describe('default operator OR', () => {
  check([
    // Adjacent bare words are one text for the analyser (Lucene MultiTerm).
    ['a b c', term(null, 'a b c')],
    ['a  b\tc', term(null, 'a b c')],
    ['a OR b', anyOf(a, b)],
    ['a || b', anyOf(a, b)],
    ['a OR b c', anyOf(a, b, c)],
    ['a OR b c d', anyOf(a, b, term(null, 'c d'))],
    ['a b -c +d', bool({ must: [d], should: [term(null, 'a b')], mustNot: [c] })],
    ['-a b c', bool({ should: [term(null, 'b c')], mustNot: [a] })],
    ['a b NOT c', bool({ should: [term(null, 'a b')], mustNot: [c] })],
    ['a NOT b c', bool({ should: [a, c], mustNot: [b] })],
    ['a b:c', anyOf(a, term('b', 'c'))],
    ['a b c:d', anyOf(term(null, 'a b'), term('c', 'd'))],
    ['a b^2', anyOf(a, term(null, 'b', { boost: 2 }))],
    ['a b~1', anyOf(a, term(null, 'b', { fuzzy: 1 }))],
    ['a b*', anyOf(a, { kind: 'term', field: null, value: 'b*', wildcard: true, pattern: 'b*' })],
    ['a b *', anyOf(a, b, { kind: 'matchAll' })],
    ['a b "c"', anyOf(term(null, 'a b'), phrase(null, 'c'))],
    ['a b OR c', anyOf(a, b, c)],
    ['a AND b', allOf(a, b)],
    ['a && b', allOf(a, b)],
    ['a AND b AND c', allOf(a, b, c)],
    // No precedence: AND makes its two neighbours required, OR adds an optional clause.
    ['a AND b OR c', bool({ must: [a, b], should: [c] })],
    ['a OR b AND c', bool({ must: [b, c], should: [a] })],
    ['a || b && c', bool({ must: [b, c], should: [a] })],
    ['a b AND c', bool({ must: [b, c], should: [a] })],
    ['a AND b c', bool({ must: [a, b], should: [c] })],
    ['a AND NOT b', bool({ must: [a], mustNot: [b] })],
    ['a AND -b', bool({ must: [a], mustNot: [b] })],
    ['a && !b', bool({ must: [a], mustNot: [b] })],
    ['a NOT b', bool({ should: [a], mustNot: [b] })],
    ['a OR NOT b', bool({ should: [a], mustNot: [b] })],
    ['NOT a AND b', bool({ must: [b], mustNot: [a] })],
    ['-a AND b', bool({ must: [b], mustNot: [a] })],
    ['NOT a', bool({ mustNot: [a] })],
    ['!a', bool({ mustNot: [a] })],
    ['-a', bool({ mustNot: [a] })],
    ['-a -b', bool({ mustNot: [a, b] })],
    ['+a', a],
    ['+a +b', allOf(a, b)],
    ['+a -b c', bool({ must: [a], should: [c], mustNot: [b] })],
    ['a AND NOT b OR c', bool({ must: [a], should: [c], mustNot: [b] })],
    ['a AND (b OR c)', allOf(a, anyOf(b, c))],
    ['(a AND b) OR (c AND d)', anyOf(allOf(a, b), allOf(c, d))],
    ['(a OR b) AND NOT (c OR d)', bool({ must: [anyOf(a, b)], mustNot: [anyOf(c, d)] })],
    ['-(a OR b)', bool({ mustNot: [anyOf(a, b)] })],
    ['+(a b) -c', bool({ must: [term(null, 'a b')], mustNot: [c] })],
    ['+(a OR b) -c', bool({ must: [anyOf(a, b)], mustNot: [c] })],
    ['NOT (a AND b)', bool({ mustNot: [allOf(a, b)] })],
    ['(-a)', bool({ mustNot: [a] })],
    ['a AND (-b)', allOf(a, bool({ mustNot: [b] }))],
    ['(a)', a],
    ['((a))', a],
    ['(((a b)))', term(null, 'a b')],
    ['(((a || b)))', anyOf(a, b)],
    ['-"a b" +[1 TO 2]', bool({ must: [range(null, '1', '2', true, true)], mustNot: [phrase(null, 'a b')] })],
    ['a AND +b', allOf(a, b)],
    ['-a AND -b', bool({ mustNot: [a, b] })],
    ['-a OR b', bool({ should: [b], mustNot: [a] })],
    // BAREOPER: "+", "-", "!" followed by whitespace are terms, not operators.
    ['a - b', anyOf(a, term(null, '-'), b)],
    ['- a', anyOf(term(null, '-'), a)],
    ['a + b', anyOf(a, term(null, '+'), b)],
    ['a ! b', anyOf(a, term(null, '!'), b)],
    ['a AND - b', bool({ must: [a, term(null, '-')], should: [b] })],
    ['AND\\ x', term(null, 'AND x')],
    ['ANDROID OR ORACLE NOTHING', anyOf(term(null, 'ANDROID'), term(null, 'ORACLE'), term(null, 'NOTHING'))],
    ['a\nAND\nb', allOf(a, b)],
    ['a\tOR\u3000b', anyOf(a, b)],
    ['a(b)c', anyOf(a, b, c)],
    ['"a""b"', anyOf(phrase(null, 'a'), phrase(null, 'b'))],
    ['a!b', bool({ should: [a], mustNot: [b] })],
    ['type:ip-dst -type:ip-src', bool({ should: [term('type', 'ip-dst')], mustNot: [term('type', 'ip-src')] })],
  ]);
});

describe('defaultOperator AND (Lucene AND mode)', () => {
  const opts = { defaultOperator: 'AND' } as const;
  check(
    [
      ['a', a],
      ['a b c', term(null, 'a b c')],
      ['a AND b c', allOf(a, b, c)],
      ['a OR b', anyOf(a, b)],
      ['a OR b c', bool({ must: [c], should: [a, b] })],
      ['a AND b OR c', bool({ must: [a], should: [b, c] })],
      ['a -b', bool({ must: [a], mustNot: [b] })],
      ['-a OR b', bool({ should: [b], mustNot: [a] })],
      ['a (b OR c)', allOf(a, anyOf(b, c))],
    ],
    opts,
  );
});
