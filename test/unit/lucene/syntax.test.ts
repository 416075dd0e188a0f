import { describe, expect, it } from 'vitest';
import type { LuceneAst } from '../../../src/search/lucene/ast.ts';
import { describeLuceneFeatures, parseLucene } from '../../../src/search/lucene/parse.ts';
import { anyOf, bool, exists, matchAll, phrase, range, regex, term, wild } from './builders.ts';

const r = String.raw;

function check(cases: ReadonlyArray<readonly [string, LuceneAst]>) {
  it.each(cases)('%s', (query, expected) => {
    expect(parseLucene(query)).toStrictEqual(expected);
  });
}

describe('terms', () => {
  check([
    ['malware', term(null, 'malware')],
    ['  malware  ', term(null, 'malware')],
    ['98.101.211.162', term(null, '98.101.211.162')],
    ['1216da2b3d6e64075e8434be1058de06', term(null, '1216da2b3d6e64075e8434be1058de06')],
    ['gugehotel.cn', term(null, 'gugehotel.cn')],
    ['CVE-2015-1770', term(null, 'CVE-2015-1770')],
    ['a+b', term(null, 'a+b')],
    ['a&&b', term(null, 'a&&b')],
    ['ANDROID', term(null, 'ANDROID')],
    ['ORACLE', term(null, 'ORACLE')],
    ['NOTEPAD.EXE', term(null, 'NOTEPAD.EXE')],
    ['and', term(null, 'and')],
    ['filename|sha256', term(null, 'filename|sha256')],
    ['bill_clay6801@yahoo.com', term(null, 'bill_clay6801@yahoo.com')],
    ['%appdata%', term(null, '%appdata%')],
    ['與天空有約', term(null, '與天空有約')],
    ['Ünïcödé', term(null, 'Ünïcödé')],
    ['🦠', term(null, '🦠')],
    ['x\u00a0y', term(null, 'x\u00a0y')],
  ]);
});

describe('fields', () => {
  check([
    ['type:ip-dst', term('type', 'ip-dst')],
    ['type : ip-dst', term('type', 'ip-dst')],
    ['type: ip-dst', term('type', 'ip-dst')],
    ['tags.name:malware', term('tags.name', 'malware')],
    ['expanded.ip2geo.country_iso_code:KP', term('expanded.ip2geo.country_iso_code', 'KP')],
    ['@timestamp:2024-01-01', term('@timestamp', '2024-01-01')],
    ['ip-dst|port:125.212.132.222|443', term('ip-dst|port', '125.212.132.222|443')],
    [r`misp\:type:md5`, term('misp:type', 'md5')],
    [r`tags.\*:tlp`, term('tags.*', 'tlp')],
    ['*:emotet', term('*', 'emotet')],
    ['type:(md5 OR sha1)', anyOf(term('type', 'md5'), term('type', 'sha1'))],
    // Without an operator the words are ONE text (OpenSearch: one term on keyword fields).
    ['type:(md5 sha1)', term('type', 'md5 sha1')],
    ['a:(b:c d)', anyOf(term('b', 'c'), term('a', 'd'))],
    ['a:(b (c d))', anyOf(term('a', 'b'), term('a', 'c d'))],
    ['a:(b OR (c || d))', anyOf(term('a', 'b'), anyOf(term('a', 'c'), term('a', 'd')))],
    ['value:(10.0.0.1)', term('value', '10.0.0.1')],
  ]);
});

describe('phrases', () => {
  check([
    ['"Network activity"', phrase(null, 'Network activity')],
    ['category:"Payload delivery"', phrase('category', 'Payload delivery')],
    ['""', phrase(null, '')],
    [r`comment:"say \"hi\""`, phrase('comment', 'say "hi"')],
    [r`"C:\\Windows\\System32"`, phrase(null, r`C:\Windows\System32`)],
    ['"a b"~2', phrase(null, 'a b', 2)],
    ['"a b" ~2', phrase(null, 'a b', 2)],
    ['"a b"~', phrase(null, 'a b', 0)],
    ['"a b"~2.7', phrase(null, 'a b', 2)],
    ['"a b"~x', phrase(null, 'a b', 0)],
    ['"a b"^3', phrase(null, 'a b', 0, { boost: 3 })],
    ['"a b"~4^3', phrase(null, 'a b', 4, { boost: 3 })],
    ['"a b"^3~4', phrase(null, 'a b', 4, { boost: 3 })],
    ['"fe80::1"', phrase(null, 'fe80::1')],
    ['"10.0.0.0/8"', phrase(null, '10.0.0.0/8')],
    ['"與天空有約 12個"', phrase(null, '與天空有約 12個')],
    ['"a\nb"', phrase(null, 'a\nb')],
  ]);
});

describe('fuzzy and boost', () => {
  check([
    ['emotet~', term(null, 'emotet', { fuzzy: 'auto' })],
    ['emotet~1', term(null, 'emotet', { fuzzy: 1 })],
    ['emotet~2', term(null, 'emotet', { fuzzy: 2 })],
    ['emotet~0', term(null, 'emotet', { fuzzy: 0 })],
    ['emotet~5', term(null, 'emotet', { fuzzy: 2 })],
    ['emotet~1.5', term(null, 'emotet', { fuzzy: 1 })],
    ['emotet~0.8', term(null, 'emotet', { fuzzy: 0 })],
    ['emotet~AUTO', term(null, 'emotet', { fuzzy: 'auto' })],
    ['family:emotet~1', term('family', 'emotet', { fuzzy: 1 })],
    ['apt28^2', term(null, 'apt28', { boost: 2 })],
    ['apt28^0.5', term(null, 'apt28', { boost: 0.5 })],
    ['apt28 ^2', term(null, 'apt28', { boost: 2 })],
    ['apt28~1^2', term(null, 'apt28', { fuzzy: 1, boost: 2 })],
    ['apt28^2~1', term(null, 'apt28', { fuzzy: 1, boost: 2 })],
    ['(apt28 apt29)^2', term(null, 'apt28 apt29', { boost: 2 })],
    ['(apt28 OR apt29)^2', bool({ should: [term(null, 'apt28'), term(null, 'apt29')] }, { boost: 2 })],
    ['((a^2))^3', term(null, 'a', { boost: 6 })],
    ['mal*~1', wild(null, 'mal*')],
  ]);
});

describe('wildcards, exists and match all', () => {
  check([
    ['mal*', wild(null, 'mal*')],
    ['mal?are', wild(null, 'mal?are')],
    ['*.gicp.net', wild(null, '*.gicp.net')],
    ['?alware', wild(null, '?alware')],
    ['**', wild(null, '**')],
    ['domain:*.evil.*', wild('domain', '*.evil.*')],
    [r`foo\*bar*`, wild(null, 'foo*bar*', r`foo\*bar*`)],
    [r`a\?b?`, wild(null, 'a?b?', r`a\?b?`)],
    [r`C\:\\temp\\*`, wild(null, r`C:\temp\*`, r`C:\\temp\\*`)],
    [r`misp-galaxy\:mitre-attack-pattern*`, wild(null, 'misp-galaxy:mitre-attack-pattern*')],
    [r`foo\*`, term(null, 'foo*')],
    [r`\?`, term(null, '?')],
    ['*', matchAll()],
    ['*:*', matchAll()],
    ['*^2', matchAll({ boost: 2 })],
    ['tags.name:*', exists('tags.name')],
    ['_exists_:tags.name', exists('tags.name')],
    ['_exists_:"tags.name"', exists('tags.name')],
    ['_exists_:(a OR b)', anyOf(exists('a'), exists('b'))],
    ['_exists_:(a b)', exists('a b')],
    ['-_exists_:comment', bool({ mustNot: [exists('comment')] })],
    ['', matchAll()],
    ['   \t\n ', matchAll()],
    ['\u3000', matchAll()],
  ]);
});

describe('regular expressions', () => {
  check([
    ['/[a-z]+\\.pro/', regex(null, '[a-z]+\\.pro')],
    ['domain:/[a-z]+\\.pro/', regex('domain', '[a-z]+\\.pro')],
    [r`url:/https?:\/\/[a-z]+\.onion\/.*/`, regex('url', r`https?:\/\/[a-z]+\.onion\/.*`)],
    [r`regkey:/HKCU\\.*\\/`, regex('regkey', r`HKCU\\.*\\`)],
    ['/a b/', regex(null, 'a b')],
    ['//', regex(null, '')],
    ['/ab/^2', regex(null, 'ab', { boost: 2 })],
    ['/ab/~1', regex(null, 'ab')],
    ['/a/b', anyOf(regex(null, 'a'), term(null, 'b'))],
    ['md5:/[0-9a-f]{32}/', regex('md5', '[0-9a-f]{32}')],
  ]);
});

describe('ranges', () => {
  check([
    ['[1 TO 5]', range(null, '1', '5', true, true)],
    ['size:{1 TO 5}', range('size', '1', '5', false, false)],
    ['size:[1 TO 5}', range('size', '1', '5', true, false)],
    ['size:{1 TO 5]', range('size', '1', '5', false, true)],
    ['size:[ 1  TO  5 ]', range('size', '1', '5', true, true)],
    ['size:[100 TO *]', range('size', '100', null, true, false)],
    ['size:[* TO 100]', range('size', null, '100', false, true)],
    ['size:[* TO *]', range('size', null, null, false, false)],
    ['size:["*" TO 5]', range('size', null, '5', false, true)],
    ['@timestamp:[now-5y/y TO now]', range('@timestamp', 'now-5y/y', 'now', true, true)],
    ['@timestamp:[2024-01-01||+1M/d TO 2024-03-01||/M}', range('@timestamp', '2024-01-01||+1M/d', '2024-03-01||/M', true, false)],
    ['@timestamp:["2024-01-01 00:00:00" TO "2024-01-31 23:59:59"]', range('@timestamp', '2024-01-01 00:00:00', '2024-01-31 23:59:59', true, true)],
    ['ip:[10.0.0.0 TO 10.255.255.255]', range('ip', '10.0.0.0', '10.255.255.255', true, true)],
    [r`name:[a\:b TO c]`, range('name', 'a:b', 'c', true, true)],
    ['[TO TO TO]', range(null, 'TO', 'TO', true, true)],
    ['size:[1 TO 5]^2', range('size', '1', '5', true, true, { boost: 2 })],
    ['size:>=100', range('size', '100', null, true, false)],
    ['size:>100', range('size', '100', null, false, false)],
    ['size:<=100', range('size', null, '100', false, true)],
    ['size:<100', range('size', null, '100', false, false)],
    ['@timestamp:>2024-01-01', range('@timestamp', '2024-01-01', null, false, false)],
    ['@timestamp:<=now-7d', range('@timestamp', null, 'now-7d', false, true)],
    [r`@timestamp:>=now-7d\/d`, range('@timestamp', 'now-7d/d', null, true, false)],
    ['size:>=*', wild('size', '>=*')],
    [r`size:>=\*`, range('size', null, null, false, false)],
    ['size:>=100^2', range('size', '100', null, true, false, { boost: 2 })],
    ['size:(>=100 OR <5)', anyOf(range('size', '100', null, true, false), range('size', null, '5', false, false))],
    ['size:(>=100 <5)', range('size', '100 <5', null, true, false)],
    ['>=100', term(null, '>=100')],
    ['size:>', term('size', '>')],
    ['size:>10*', wild('size', '>10*')],
    ['size:>10~1', term('size', '>10', { fuzzy: 1 })],
    ['size:">=100"', phrase('size', '>=100')],
    ['_exists_:>a', exists('>a')],
  ]);
});

describe('escapes', () => {
  check([
    [r`http\:\/\/x`, term(null, 'http://x')],
    [r`url:http\:\/\/decrypttozxybarc.onion\/F97F-EFC0-B07D-003F-3EA6`, term('url', 'http://decrypttozxybarc.onion/F97F-EFC0-B07D-003F-3EA6')],
    [r`\-type`, term(null, '-type')],
    [r`a\ b`, term(null, 'a b')],
    [r`\(x\)`, term(null, '(x)')],
    [r`\+1`, term(null, '+1')],
    [r`\!x`, term(null, '!x')],
    [r`\~x`, term(null, '~x')],
    [r`a\^2`, term(null, 'a^2')],
    [r`\[x\]`, term(null, '[x]')],
    [r`\{x\}`, term(null, '{x}')],
    [r`\"x\"`, term(null, '"x"')],
    [r`\\`, term(null, '\\')],
    [r`\AND`, term(null, 'AND')],
    [r`\u00e9t\u00C9`, term(null, 'étÉ')],
    [r`\u002a`, term(null, '*')],
    [r`ip:2001\:db8\:\:1`, term('ip', '2001:db8::1')],
    [r`\>5`, term(null, '>5')],
    [r`size:\>5`, range('size', '5', null, false, false)],
  ]);
});

describe('describeLuceneFeatures', () => {
  it('is a non-empty list of strings', () => {
    expect(describeLuceneFeatures.length).toBeGreaterThan(10);
    for (const f of describeLuceneFeatures) expect(typeof f).toBe('string');
  });
});
