import { describe, expect, it } from 'vitest';
import { checkLuceneRegex } from '../../../src/search/lucene/regexp.ts';

const r = String.raw;

describe('checkLuceneRegex: accepted (checked against OpenSearch 2.19)', () => {
  it.each([
    '',
    'abc',
    '[a-z]+\\.pro',
    r`https?:\/\/[a-z0-9]+\.onion\/.*`,
    r`\d+\.\w\s\S\D\W`,
    r`a\\`,
    '.*uyghur\\.(com|top)',
    '[0-9a-f]{32}',
    'a{2}b{1,}c{0,3}',
    '(ab)*|c+d?',
    '()',
    ')',
    '|a',
    '*a',
    '[]]',
    '[^abc]',
    '[\\]]',
    '~(ab)',
    'a&b',
    '#|@',
    '"a.b"x',
    '<1-10>',
    '<+1-5>',
    '<010-100>',
    '🦠+',
    'x-[0-9]',
  ])('%s', (pattern) => {
    expect(checkLuceneRegex(pattern)).toBeNull();
  });
});

describe('checkLuceneRegex: rejected', () => {
  it.each([
    ['[a-z', 0, "unterminated character class: expected ']'"],
    ['(a|b', 0, "unterminated group: expected ')'"],
    ['a)', 1, "unexpected ')'"],
    ['a{2,1}', 6, 'invalid repetition range {2,1}'],
    ['a{x}', 2, 'integer expected'],
    ['a{2', 3, "expected '}'"],
    ['a{3000000000}', 2, 'number too large'],
    ['[z-a]', 1, 'invalid character range z-a'],
    [r`\A`, 0, "invalid escape '\\A'"],
    [r`[\q]`, 1, "invalid escape '\\q'"],
    ['<name>', 0, 'named automaton <name> is not supported'],
    ['<1-2-3>', 0, 'invalid numeric interval <1-2-3>'],
    ['<5>', 0, 'named automaton <5> is not supported'],
    ['<1-', 0, "unterminated interval: expected '>'"],
    ['"ab', 0, 'unterminated string: expected \'"\''],
    ['ab\\', 3, 'unexpected end of the regular expression'],
    ['a|', 2, 'unexpected end of the regular expression'],
    ['('.repeat(300) + ')'.repeat(300), 256, 'regular expression nested too deeply'],
  ])('%s', (pattern, position, message) => {
    expect(checkLuceneRegex(pattern)).toStrictEqual({ position, message });
  });
});
