/**
 * Fuzzy terms (`emotet~`, `value:gugehotl.cn~1`) with OpenSearch's `query_string` semantics, for the
 * PostgreSQL backend: before a query is compiled, each fuzzy term is replaced by the terms of the
 * field's dictionary it stands for, as Lucene's FuzzyQuery rewrites itself, so both compile paths
 * (`./compile.ts`, `./postings-plan.ts`) see exact terms only.
 *
 * - Distance: `~N` is N (the parser caps it at 2); `~` and `~AUTO` give 0 edits for a term of up to
 *   2 code points, 1 up to 5, 2 beyond, counted on the term as typed (OpenSearch's
 *   `Fuzziness.AUTO.asDistance` of the query text). Edits count code points; a transposition of
 *   two adjacent characters is one edit (`fuzzy_transpositions` true: the optimal string
 *   alignment distance of Lucene's Levenshtein automata). No prefix is required (`fuzzy_prefix_length` 0).
 * - The term is normalised as the field's search analyzer normalises (lower case on text fields,
 *   as typed on keyword fields) and NOT tokenized: `foo-bar~` is one term, as in Lucene.
 * - Expansions: at most 50 terms (`fuzzy_max_expansions`), chosen as Lucene's top-terms rewrite
 *   does: terms enumerated in code point order, each scored 1 - edits / min(its length, the
 *   query's length), the best 50 kept (ties: the smaller term), and the enumeration stops
 *   accepting an edit distance once the 50th score reaches that distance's best possible score.
 *   OpenSearch does this per segment, so when more than 50 terms qualify the kept set can differ
 *   with the segment layout there; with 50 or fewer both match every qualifying term.
 * - Fields: text and keyword (and `.keyword` sub-fields). Another type named explicitly fails the
 *   query (400, as OpenSearch: "Can only use fuzzy queries on keyword and text fields"); among
 *   default fields or field patterns it matches nothing.
 * - Candidates come from the term dictionary (`search_terms`, terms with postings), narrowed by
 *   length and by `fuzzystrmatch`'s `levenshtein_less_equal` at twice the distance (a
 *   transposition is two Levenshtein edits); the exact distance is computed here. Fields without
 *   a dictionary (`uuid`, `*_uuid`) read their distinct values from the documents.
 */
import type pg from "pg";
import type { BoolNode, LuceneAst, LuceneNode, PlainTermNode } from "../lucene/ast.ts";
import { SearchQueryError, type IndexName, type SearchRequest } from "../search-index.ts";
import { analyze, lowerCase } from "./analyzer.ts";
import { FieldTypeError, SqlCompiler } from "./compile.ts";
import { dictionaryField, hasPostings, MAX_TERM } from "./postings.ts";
import { inReadOnlyTransaction } from "./read-only.ts";

/** OpenSearch's `fuzzy_max_expansions` default. */
export const FUZZY_MAX_EXPANSIONS = 50;

/** `levenshtein_less_equal` refuses longer strings. */
const LEVENSHTEIN_MAX = 255;

/** Edits `~` / `~AUTO` allow for a term as typed (OpenSearch: AUTO:3,6). */
export function autoEdits(term: string): number {
  const length = [...term].length;
  return length < 3 ? 0 : length < 6 ? 1 : 2;
}

/**
 * The optimal string alignment distance between two code point arrays (insertions, deletions,
 * substitutions, adjacent transpositions; no substring edited twice), or `max + 1` once it
 * certainly exceeds `max`.
 */
export function editDistance(a: readonly string[], b: readonly string[], max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}

const byCodePoint = (a: string, b: string) => {
  // UTF-16 order differs from code point (and UTF-8 byte) order only around surrogates.
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

interface Scored {
  term: string;
  score: number;
}

/** The terms a fuzzy term expands to among `candidates` (see the file's comment). */
export function fuzzyExpansions(query: string, candidates: readonly string[], maxEdits: number, limit = FUZZY_MAX_EXPANSIONS): string[] {
  const q = [...query];
  let edits = maxEdits;
  const kept: Scored[] = [];
  // The worst kept term: lowest score, then the larger term.
  const worse = (a: Scored, b: Scored) => (a.score !== b.score ? a.score < b.score : byCodePoint(a.term, b.term) > 0);
  let worst = -1;
  const findWorst = () => {
    worst = 0;
    for (let i = 1; i < kept.length; i++) if (worse(kept[i]!, kept[worst]!)) worst = i;
  };
  for (const term of [...new Set(candidates)].sort(byCodePoint)) {
    const t = [...term];
    const ed = editDistance(q, t, edits);
    if (ed > edits) continue;
    const score = ed === 0 ? 1 : 1 - ed / Math.min(t.length, q.length);
    const entry = { term, score };
    if (kept.length < limit) {
      kept.push(entry);
      if (kept.length === limit) findWorst();
    } else if (worse(kept[worst]!, entry)) {
      kept[worst] = entry;
      findWorst();
    } else continue;
    if (kept.length === limit) {
      // Lucene's FuzzyTermsEnum: a distance whose best score cannot beat the 50th is no longer enumerated.
      const bottom = kept[worst]!.score;
      while (edits > 0 && bottom >= 1 - edits / q.length) edits--;
    }
  }
  return kept.map((k) => k.term).sort(byCodePoint);
}

const NOTHING: LuceneNode = { kind: "bool", must: [{ kind: "matchAll" }], should: [], mustNot: [{ kind: "matchAll" }] };

/** Does the query hold a fuzzy term? (Most do not: they skip the dictionary round trip.) */
export function hasFuzzy(node: LuceneNode): boolean {
  if (node.kind === "bool") return [...node.must, ...node.should, ...node.mustNot].some(hasFuzzy);
  return node.kind === "term" && !node.wildcard && node.fuzzy !== undefined;
}

/** The query with every fuzzy term replaced by its expansions (exact terms of the field). */
export async function expandFuzzy(sql: Pick<pg.Pool, "query">, index: IndexName, defaultFields: string[], query: LuceneAst, now: number): Promise<LuceneAst> {
  if (!hasFuzzy(query)) return query;
  const fields = new SqlCompiler(index, defaultFields, now);
  const rewrite = async (node: LuceneNode): Promise<LuceneNode> => {
    if (node.kind === "bool") {
      const all = (xs: LuceneNode[]) => Promise.all(xs.map(rewrite));
      const out: BoolNode = { ...node, must: await all(node.must), should: await all(node.should), mustNot: await all(node.mustNot) };
      return out;
    }
    if (node.kind !== "term" || node.wildcard || node.fuzzy === undefined) return node;
    return expandTerm(sql, index, fields, node);
  };
  return rewrite(query);
}

async function expandTerm(sql: Pick<pg.Pool, "query">, index: IndexName, compiler: SqlCompiler, node: PlainTermNode): Promise<LuceneNode> {
  const { fields, lenient } = compiler.resolve(node.field);
  const edits = typeof node.fuzzy === "number" ? node.fuzzy : autoEdits(node.value);
  const alternatives: LuceneNode[] = [];
  for (const f of fields) {
    if (f.type !== "text" && f.type !== "keyword") {
      if (lenient) continue;
      throw new FieldTypeError(`Can only use fuzzy queries on keyword and text fields, not on ${f.key} (${f.type})`);
    }
    const normalised = f.type === "text" ? lowerCase(node.value) : node.value;
    const terms = edits === 0 ? [normalised] : fuzzyExpansions(normalised, await candidatesOf(sql, index, f.key, normalised, edits), edits);
    for (const term of terms) alternatives.push(exactTerm(f.key, f.type, term));
  }
  if (alternatives.length === 0) return NOTHING;
  return alternatives.length === 1 ? alternatives[0]! : { kind: "bool", must: [], should: alternatives, mustNot: [] };
}

/**
 * A node matching exactly one term of a field: a keyword value, or a token of a text field (a term
 * node when analysing the token gives it back, else an anchored literal regex on the tokens).
 */
function exactTerm(field: string, type: "text" | "keyword", term: string): LuceneNode {
  if (type === "keyword") return { kind: "term", field, value: term, wildcard: false };
  const tokens = analyze(term);
  if (tokens.length === 1 && tokens[0] === term) return { kind: "term", field, value: term, wildcard: false };
  return { kind: "regex", field, pattern: [...term].map((ch) => (/[\p{L}\p{N}]/u.test(ch) ? ch : `\\${ch}`)).join("") };
}

/** Terms of the field within `edits` of `term` by length, and within twice that by Levenshtein. */
async function candidatesOf(sql: Pick<pg.Pool, "query">, index: IndexName, field: string, term: string, edits: number): Promise<string[]> {
  const length = [...term].length;
  const lo = Math.max(1, length - edits);
  const hi = Math.min(MAX_TERM, length + edits);
  if (lo > hi) return [];
  const narrow = hi <= LEVENSHTEIN_MAX;
  const params: unknown[] = [lo, hi];
  const levenshtein = (column: string) => (narrow ? ` AND levenshtein_less_equal(${column}, $${params.push(term)}, ${edits * 2}) <= ${edits * 2}` : "");
  if (hasPostings(field, "keyword")) {
    const where = `field = $${params.push(dictionaryField(index, field))} AND length BETWEEN $1 AND $2 AND pulse IS DISTINCT FROM 0`;
    const { rows } = await sql.query<{ term: string }>(`SELECT term FROM search_terms WHERE ${where}${levenshtein("term")}`, params);
    return rows.map((r) => r.term);
  }
  // No dictionary for the field: its distinct values in the documents (keyword fields: uuids).
  const { rows } = await sql.query<{ term: string }>(
    `SELECT DISTINCT x.v AS term FROM search_documents d, jsonb_array_elements_text(d.fields -> $${params.push(field)}) AS x(v)
      WHERE d.index_name = $${params.push(index)} AND d.fields ? $3 AND char_length(x.v) BETWEEN $1 AND $2${levenshtein("x.v")}`,
    params,
  );
  return rows.map((r) => r.term);
}

/**
 * The request's query with its fuzzy terms expanded, the dictionary read in a read-only transaction
 * under the search timeout. A fuzzy term on a field that cannot take it is a `SearchQueryError`
 * "invalid" (400), as a compile error is.
 */
export async function withFuzzyExpanded(pool: pg.Pool, req: Pick<SearchRequest, "index" | "defaultFields" | "query">, now: number, timeoutMs: number): Promise<LuceneAst> {
  if (!hasFuzzy(req.query)) return req.query;
  try {
    return await inReadOnlyTransaction(pool, timeoutMs, "read committed", (client) => expandFuzzy(client, req.index, req.defaultFields, req.query, now));
  } catch (err) {
    if (err instanceof FieldTypeError) throw new SearchQueryError(err.message, "invalid");
    throw err;
  }
}
