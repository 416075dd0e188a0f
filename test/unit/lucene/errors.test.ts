import { describe, expect, it } from 'vitest';
import type { LuceneNode } from '../../../src/search/lucene/ast.ts';
import {
  LUCENE_DEFAULT_OPTIONS,
  LuceneSyntaxError,
  parseLucene,
  type LuceneSyntaxErrorCode,
  type ParseLuceneOptions,
} from '../../../src/search/lucene/parse.ts';

const r = String.raw;

function errorOf(query: string, opts?: ParseLuceneOptions): LuceneSyntaxError {
  try {
    parseLucene(query, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(LuceneSyntaxError);
    return err as LuceneSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

/** [query, code, offset of the error] */
const syntaxCases: ReadonlyArray<readonly [string, LuceneSyntaxErrorCode, number]> = [
  // unbalanced parentheses
  ['(type:ip-dst', 'syntax', 12],
  ['type:ip-dst)', 'syntax', 11],
  ['((a)', 'syntax', 4],
  ['(a))', 'syntax', 3],
  [')', 'syntax', 0],
  ['(', 'syntax', 1],
  ['()', 'syntax', 1],
  ['type:(md5 OR sha1', 'syntax', 17],
  ['a AND (b OR (c)', 'syntax', 15],
  // unbalanced quotes
  ['"unterminated', 'syntax', 0],
  ['value:"10.0.0.1', 'syntax', 6],
  ['"a" "b', 'syntax', 4],
  [r`"a\"`, 'syntax', 0],
  // dangling operators
  ['a AND', 'syntax', 5],
  ['a OR', 'syntax', 4],
  ['a &&', 'syntax', 4],
  ['a ||', 'syntax', 4],
  ['AND a', 'syntax', 0],
  ['OR a', 'syntax', 0],
  ['&& a', 'syntax', 0],
  ['a AND OR b', 'syntax', 6],
  ['a || || b', 'syntax', 5],
  ['a AND AND b', 'syntax', 6],
  ['NOT', 'syntax', 3],
  ['a NOT', 'syntax', 5],
  ['NOT NOT a', 'syntax', 4],
  ['-', 'syntax', 1],
  ['+', 'syntax', 1],
  ['!', 'syntax', 1],
  ['a -', 'syntax', 3],
  ['--a', 'syntax', 1],
  ['+-a', 'syntax', 1],
  ['a AND NOT', 'syntax', 9],
  ['(a AND)', 'syntax', 6],
  // field without value / misplaced colons
  ['field:', 'syntax', 6],
  ['field: ', 'syntax', 7],
  ['field:)', 'syntax', 6],
  ['type:AND', 'syntax', 5],
  [':value', 'syntax', 0],
  ['tags.name:tlp:white', 'syntax', 13],
  ['ip-dst:fe80::1', 'syntax', 11],
  ['url:http://x', 'syntax', 8],
  ['tags.*:tlp', 'syntax', 6],
  ['"a b":c', 'syntax', 5],
  // slashes start a regex: unescaped CIDR / URL path / date rounding
  ['ip-dst:10.0.0.0/8', 'syntax', 15],
  ['url:www.example.com/index.html', 'syntax', 19],
  ['@timestamp:>=now-7d/d', 'syntax', 19],
  ['/unterminated', 'syntax', 0],
  // ranges
  ['[a TO b', 'syntax', 0],
  ['size:[1 TO 5', 'syntax', 5],
  ['{a TO b', 'syntax', 0],
  ['[a TO]', 'syntax', 0],
  ['[TO b]', 'syntax', 0],
  ['[a b]', 'syntax', 0],
  ['[a TO b TO c]', 'syntax', 0],
  ['[]', 'syntax', 0],
  ['a]', 'syntax', 1],
  ['a}', 'syntax', 1],
  ['date:[2024-01-01\tTO 2024-02-01]', 'syntax', 5],
  // boosts and fuzziness
  ['a^', 'syntax', 1],
  ['a^x', 'syntax', 1],
  ['a^ 2', 'syntax', 1],
  ['a^-1', 'syntax', 1],
  ['a^2^3', 'syntax', 3],
  ['(a)^', 'syntax', 3],
  ['a~1~2', 'syntax', 3],
  ['(a b)~2', 'syntax', 5],
  ['~1', 'syntax', 0],
  ['^2', 'syntax', 0],
  ['a~x', 'invalid_fuzziness', 0],
  ['a~-1', 'invalid_fuzziness', 0],
  // escapes
  ['a\\', 'syntax', 1],
  [r`a\u12`, 'invalid_escape', 1],
  [r`a\uZZZZ`, 'invalid_escape', 1],
  [r`/\user/`, 'invalid_escape', 1],
  [r`[a\ TO b]`, 'invalid_escape', 1],
  // regex bodies OpenSearch's Lucene RegExp parser rejects
  ['domain:/[a-z/', 'invalid_regex', 8],
  ['domain:/(evil|bad\\.com/', 'invalid_regex', 8],
  ['/a)/', 'invalid_regex', 2],
  ['/a{2,1}/', 'invalid_regex', 7],
  ['/a{/', 'invalid_regex', 3],
  ['/a{99999999999}/', 'invalid_regex', 3],
  ['/[z-a]/', 'invalid_regex', 2],
  ['/[a-]/', 'invalid_regex', 2],
  ['/[]/', 'invalid_regex', 1],
  [r`/\A/`, 'invalid_regex', 1],
  [r`/\u00e9/`, 'invalid_regex', 1],
  ['/<ip>/', 'invalid_regex', 1],
  ['/<1-x>/', 'invalid_regex', 1],
  ['/"ab/', 'invalid_regex', 1],
  ['/a|/', 'invalid_regex', 3],
  ['/a&/', 'invalid_regex', 3],
  ['/~/', 'invalid_regex', 2],
  // field names OpenSearch cannot resolve
  ['.:x', 'invalid_field', 0],
  ['a OR ..:(x)', 'invalid_field', 5],
  // control characters (literal and escaped) and broken UTF-16
  ['a\u0000b', 'control_character', 1],
  ['type:md5\u0007', 'control_character', 8],
  ['a\u001bb', 'control_character', 1],
  ['a\u007f', 'control_character', 1],
  ['a\u0085', 'control_character', 1],
  ['"x\u000cy"', 'control_character', 2],
  ['a\ud800b', 'control_character', 1],
  ['a\udc00', 'control_character', 1],
  [r`a\u0000`, 'control_character', 1],
  [r`"\u001b[31m"`, 'control_character', 1],
  [r`\ud83d`, 'control_character', 0],
];

describe('rejected input', () => {
  it.each(syntaxCases)('%s -> %s', (query, code, offset) => {
    const err = errorOf(query);
    expect({ code: err.code, offset: err.offset }).toStrictEqual({ code, offset });
    expect(err.name).toBe('LuceneSyntaxError');
    expect(err.message.length).toBeGreaterThan(10);
  });

  it('reports line and column', () => {
    const err = errorOf('type:ip-dst AND\n  value:(1.2.3.4\n  OR 5.6.7.8');
    expect([err.offset, err.line, err.column]).toStrictEqual([45, 3, 13]);
    expect(err.message).toBe("Unexpected end of query: missing closing ')' (line 3, column 13)");
  });

  it('gives readable messages', () => {
    expect(errorOf('ip-dst:10.0.0.0/8').message).toMatch(/Unterminated regular expression.*\\\//);
    expect(errorOf('"abc').message).toMatch(/^Unterminated phrase/);
    expect(errorOf('tags.name:tlp:white').message).toMatch(/escape a literal colon/);
    expect(errorOf('a)').message).toMatch(/without matching '\('/);
    expect(errorOf('()').message).toMatch(/^Empty group/);
    expect(errorOf('a AND').message).toMatch(/^Unexpected end of query, expected/);
    expect(errorOf('NOT NOT a').message).toMatch(/^Unexpected 'NOT'/);
    expect(errorOf('a\u0000').message).toMatch(/^Control character U\+0000/);
  });

  it('accepts tab/newline/CR as whitespace', () => {
    expect(parseLucene('a\tOR\rb\r\nOR c').kind).toBe('bool');
    expect(parseLucene('a\tb\r\nc')).toStrictEqual({ kind: 'term', field: null, value: 'a b c', wildcard: false });
  });
});

describe('limits', () => {
  it('has the documented defaults', () => {
    expect(LUCENE_DEFAULT_OPTIONS).toStrictEqual({
      maxLength: 10_000,
      maxClauses: 1024,
      maxDepth: 32,
      maxRegexLength: 256,
      defaultOperator: 'OR',
    });
  });

  it('rejects queries over maxLength before parsing', () => {
    expect(parseLucene('a'.repeat(10_000))).toStrictEqual({ kind: 'term', field: null, value: 'a'.repeat(10_000), wildcard: false });
    const err = errorOf('a'.repeat(10_001));
    expect([err.code, err.offset]).toStrictEqual(['query_too_long', 10_000]);
    expect(errorOf('(((', { maxLength: 2 }).code).toBe('query_too_long');
  });

  it('rejects a 10 000-term query fast (length limit with defaults)', () => {
    const query = Array.from({ length: 10_000 }, (_, i) => `t${i}`).join(' ');
    const t0 = performance.now();
    expect(errorOf(query).code).toBe('query_too_long');
    expect(performance.now() - t0).toBeLessThan(100);
  });

  it.each([
    ['implicit OR', ' '],
    ['AND', ' AND '],
    ['OR', ' OR '],
    ['NOT', ' NOT '],
  ])('rejects a 10 000-term %s query with the clause limit, fast, without stack overflow', (_label, sep) => {
    const query = Array.from({ length: 10_000 }, (_, i) => `value:10.0.${i >> 8}.${i & 255}`).join(sep);
    const t0 = performance.now();
    const err = errorOf(query, { maxLength: 1_000_000 });
    expect(err.code).toBe('too_many_clauses');
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('counts every leaf, in nested groups too', () => {
    const ok = Array.from({ length: 1024 }, (_, i) => `f${i}`).join(' OR ');
    expect((parseLucene(ok) as Extract<LuceneNode, { kind: 'bool' }>).should).toHaveLength(1024);
    expect(errorOf(`${ok} OR x`).code).toBe('too_many_clauses');
    // Adjacent words joined into one text still count one clause per word.
    const words = Array.from({ length: 1025 }, (_, i) => `w${i}`).join(' ');
    expect(errorOf(words).code).toBe('too_many_clauses');
    expect(errorOf('(a b) (c (d e))', { maxClauses: 4 }).code).toBe('too_many_clauses');
    expect(parseLucene('(a b) (c d)', { maxClauses: 4 }).kind).toBe('bool');
    expect(errorOf('[1 TO 2] "a" /b/ c:* d', { maxClauses: 4 }).offset).toBe(21);
  });

  it('enforces maxDepth (parentheses and field groups)', () => {
    const deep = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
    expect(parseLucene(deep(32))).toStrictEqual({ kind: 'term', field: null, value: 'a', wildcard: false });
    const err = errorOf(deep(33));
    expect([err.code, err.offset]).toStrictEqual(['too_deep', 32]);
    expect(errorOf('f:('.repeat(33) + 'a' + ')'.repeat(33)).code).toBe('too_deep');
    expect(errorOf('(a) (b) ((c))', { maxDepth: 1 }).code).toBe('too_deep');
    expect(parseLucene('(a) (b) (c)', { maxDepth: 1 }).kind).toBe('bool');
    expect(errorOf('(a)', { maxDepth: 0 }).code).toBe('too_deep');
  });

  it('rejects pathological nesting fast, without overflowing the stack', () => {
    const t0 = performance.now();
    expect(errorOf('('.repeat(9_999)).code).toBe('too_deep');
    expect(errorOf('('.repeat(500_000) + 'a' + ')'.repeat(500_000), { maxLength: 2_000_000 }).code).toBe('too_deep');
    expect(errorOf('(-'.repeat(4_000) + 'a').code).toBe('too_deep');
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it('enforces maxRegexLength', () => {
    const body = 'a'.repeat(256);
    expect(parseLucene(`/${body}/`)).toStrictEqual({ kind: 'regex', field: null, pattern: body });
    const err = errorOf(`x OR /${body}b/`);
    expect([err.code, err.offset]).toStrictEqual(['regex_too_long', 5]);
    expect(errorOf('/abcd/', { maxRegexLength: 3 }).code).toBe('regex_too_long');
  });

  it('validates its options', () => {
    expect(() => parseLucene('a', { maxClauses: 0 })).toThrow(RangeError);
    expect(() => parseLucene('a', { maxDepth: -1 })).toThrow(RangeError);
    expect(() => parseLucene('a', { maxLength: 1.5 })).toThrow(RangeError);
    expect(() => parseLucene('a', { defaultOperator: 'XOR' as 'OR' })).toThrow(RangeError);
  });
});

/** Deterministic fuzzing: only LuceneSyntaxError may escape, quickly, and ASTs are well-formed. */
describe('fuzz', () => {
  const pieces = [
    'a', 'b', 'type', 'ip-dst', '10.0.0.1', 'AND', 'OR', 'NOT', '&&', '||', '!', '+', '-', '(', ')', '[', ']', '{',
    '}', '"', '/', '\\', ':', '^', '~', '*', '?', 'TO', '2', '1.5', ' ', ' ', ' ', '\t', '\n', '.', 'é', '>=', '<',
    '_exists_', '\\u00', 'now-7d/d', '||', '\u3000', '#', '@',
  ];
  function* random(seed: number, count: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    for (let i = 0; i < count; i++) {
      const n = 1 + Math.floor(next() * 24);
      let q = '';
      for (let j = 0; j < n; j++) q += pieces[Math.floor(next() * pieces.length)];
      yield q;
    }
  }
  function checkNode(node: LuceneNode): void {
    switch (node.kind) {
      case 'bool':
        expect(node.must.length + node.should.length + node.mustNot.length).toBeGreaterThan(0);
        [...node.must, ...node.should, ...node.mustNot].forEach(checkNode);
        break;
      case 'term':
        expect(node.value.length).toBeGreaterThan(0);
        if (node.wildcard) expect(node.pattern).toMatch(/[*?]/);
        break;
      case 'range':
        if (node.lower === null) expect(node.includeLower).toBe(false);
        if (node.upper === null) expect(node.includeUpper).toBe(false);
        break;
      default:
        break;
    }
  }

  it('never throws anything but LuceneSyntaxError', () => {
    let accepted = 0;
    const t0 = performance.now();
    for (const q of random(20240601, 5_000)) {
      try {
        checkNode(parseLucene(q));
        accepted++;
      } catch (err) {
        if (!(err instanceof LuceneSyntaxError)) throw new Error(`${JSON.stringify(q)}: ${String(err)}`);
        expect(err.offset).toBeGreaterThanOrEqual(0);
        expect(err.offset).toBeLessThanOrEqual(q.length);
        expect(err.line).toBeGreaterThanOrEqual(1);
        expect(err.column).toBeGreaterThanOrEqual(1);
      }
    }
    expect(accepted).toBeGreaterThan(100);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
