/**
 * Generates src/search/lucene/parser.generated.js (+ .d.ts) from
 * src/search/lucene/grammar.peggy.
 *
 *   npx tsx scripts/build-lucene-parser.ts          # write the files
 *   npx tsx scripts/build-lucene-parser.ts --check  # exit 1 when stale
 *
 * The output is deterministic (no timestamps), so the unit test
 * test/unit/lucene/generated.test.ts can regenerate it in memory and
 * compare it with the committed files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import peggy from 'peggy';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const LUCENE_DIR = resolve(ROOT, 'src/search/lucene');
export const GRAMMAR_PATH = resolve(LUCENE_DIR, 'grammar.peggy');
export const PARSER_PATH = resolve(LUCENE_DIR, 'parser.generated.js');
export const DTS_PATH = resolve(LUCENE_DIR, 'parser.generated.d.ts');

const BANNER = [
  '// GENERATED FILE - DO NOT EDIT.',
  '// Source: src/search/lucene/grammar.peggy',
  '// Regenerate with: npx tsx scripts/build-lucene-parser.ts',
  '/* eslint-disable */',
  '',
].join('\n');

const DTS = `${BANNER}// Type declarations for the peggy-generated Lucene query parser.
import type { CstQuery } from './cst.ts';

export interface GeneratedParserLocation {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

export interface GeneratedParserOptions {
  /** Maximum parenthesis nesting depth before onTooDeep is called. */
  maxDepth?: number;
  /** Called (and expected to throw) when maxDepth is exceeded; receives the offset of the "(". */
  onTooDeep?: (offset: number) => never;
  startRule?: 'Start';
}

export declare class SyntaxError extends Error {
  readonly expected: ReadonlyArray<{ type: string; text?: string; description?: string }> | null;
  readonly found: string | null;
  readonly location: { readonly start: GeneratedParserLocation; readonly end: GeneratedParserLocation };
}

export declare const StartRules: readonly string[];

/** Returns null for an empty / whitespace-only query. */
export declare function parse(input: string, options?: GeneratedParserOptions): CstQuery | null;
`;

export interface GeneratedLuceneParser {
  js: string;
  dts: string;
}

/** Compiles the grammar; pure (reads the grammar, writes nothing). */
export function generateLuceneParser(grammar = readFileSync(GRAMMAR_PATH, 'utf8')): GeneratedLuceneParser {
  const source = peggy.generate(grammar, {
    output: 'source',
    format: 'es',
    grammarSource: 'grammar.peggy',
    allowedStartRules: ['Start'],
    cache: false,
  });
  return { js: BANNER + source.replace(/\r\n/g, '\n'), dts: DTS };
}

function main(argv: string[]): number {
  const generated = generateLuceneParser();
  if (argv.includes('--check')) {
    const stale = [
      [PARSER_PATH, generated.js],
      [DTS_PATH, generated.dts],
    ].filter(([path, text]) => {
      try {
        return readFileSync(path!, 'utf8') !== text;
      } catch {
        return true;
      }
    });
    for (const [path] of stale) console.error(`stale: ${path} (run: npx tsx scripts/build-lucene-parser.ts)`);
    return stale.length === 0 ? 0 : 1;
  }
  writeFileSync(PARSER_PATH, generated.js);
  writeFileSync(DTS_PATH, generated.dts);
  console.log(`wrote ${PARSER_PATH}\nwrote ${DTS_PATH}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
