// GENERATED FILE - DO NOT EDIT.
// Source: src/search/lucene/grammar.peggy
// Regenerate with: npx tsx scripts/build-lucene-parser.ts
/* eslint-disable */
// Type declarations for the peggy-generated Lucene query parser.
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
