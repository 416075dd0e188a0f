import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DTS_PATH, generateLuceneParser, PARSER_PATH } from '../../../scripts/build-lucene-parser.ts';

const HINT = 'src/search/lucene/parser.generated.* is stale: run `npx tsx scripts/build-lucene-parser.ts`';

describe('generated parser', () => {
  const generated = generateLuceneParser();

  it('parser.generated.js matches grammar.peggy', () => {
    const upToDate = readFileSync(PARSER_PATH, 'utf8') === generated.js;
    expect(upToDate, HINT).toBe(true);
  });

  it('parser.generated.d.ts matches the build script', () => {
    const upToDate = readFileSync(DTS_PATH, 'utf8') === generated.dts;
    expect(upToDate, HINT).toBe(true);
  });

  it('detects a changed grammar', () => {
    const grammar = readFileSync(PARSER_PATH.replace('parser.generated.js', 'grammar.peggy'), 'utf8');
    expect(generateLuceneParser(grammar.replace('"AND or OR"', '"and/or"')).js).not.toBe(generated.js);
  });
});
