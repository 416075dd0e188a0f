/**
 * Which searches the postings (`./postings.ts`) answer, and how: a Lucene AST -> a conjunction of
 * posting sources, or null when the query needs the JSONB path (`./compile.ts`).
 *
 * The plan has the JSONB compiler's semantics leaf by leaf: every leaf is first compiled by it (so
 * type errors, lenient fields and dropped clauses are decided in one place), and only leaves whose
 * postings hold exactly the documents that condition selects are planned:
 * - terms on keyword, text (OR of its tokens), long, boolean, ip (an address or a CIDR block);
 * - phrases of one or two tokens (two: the adjacent-pair key);
 * - prefix wildcards (`ukraine*`: a key range); other wildcards and regexes on keyword and text
 *   fields (a pattern, matched against the term dictionary at search time, `./postings-search.ts`);
 *   long, date and ip ranges; `@timestamp` ranges and terms (a condition on `ts`); `_exists_` (the
 *   field's presence key, or its key range); match-all.
 * - bools: AND / NOT of those, OR of term leaves (one source with their keys and ranges).
 * Not planned (JSONB path): keyword/text/boolean ranges, ip_range fields,
 * terms over MAX_TERM, phrases of three or more tokens, sloppy phrases, OR of conjunctions, negated ranges, filters
 * other than `deleted`, sorts other than `@timestamp` (newest or oldest first).
 */
import type { LuceneNode, PhraseNode, RangeNode, RegexNode, TermNode } from "../lucene/ast.ts";
import type { FieldType } from "../fields.ts";
import type { IndexName, SearchRequest } from "../search-index.ts";
import { analyze, lowerCase } from "./analyzer.ts";
import { dateRangeBounds, FieldTypeError, longRangeBounds, regexAsNormalised, SqlCompiler, wildcardToLike } from "./compile.ts";
import { parseCidr, parseIp } from "./ip.ts";
import { luceneRegexToPostgres } from "./regex.ts";
import { cidrTerms, dictionaryField, hasPostings, ipTerm, longTerm, pairKey, prefixRange, presenceKey, presentThrough, termFits, termKey } from "./postings.ts";

/** Documents that have one of `keys`, a key within one of `ranges`, or a term matching one of `patterns`. */
export interface PostingSource {
  keys: string[];
  ranges: KeyRange[];
  patterns?: TermPattern[];
  /**
   * Once patterns are matched (`./postings-search.ts`): what a driver reads instead of `keys` (these
   * keys, and the postings the dictionary inlines for the patterns' terms: `inlined` of them), and
   * how many terms matched (`keys` lists them only when they are few enough to probe with).
   */
  read?: { keys: string[]; patterns: TermPattern[]; inlined: number; terms: number };
}

export interface KeyRange {
  lo: string;
  hi: string;
  loInclusive: boolean;
  hiInclusive: boolean;
  /**
   * The range holds exactly the postings of the terms of this dictionary field (`dictionaryField`)
   * that start with `prefix`: when they are few, their keys replace it (`./postings-search.ts`).
   */
  terms?: { field: string; prefix: string };
  /** A range of a long or date field (its highest values are often the newest documents'). */
  numeric?: boolean;
}

/**
 * The terms of a dictionary field (`dictionaryField`) that match a LIKE pattern or an anchored
 * PostgreSQL regex, and whose length (code points) lies within [minLength, maxLength].
 */
export interface TermPattern {
  field: string;
  like?: string;
  regex?: string;
  minLength: number;
  maxLength: number;
  /** The pattern holds a run of three letters or digits, from which pg_trgm can select terms. */
  trigrams: boolean;
  /** `*<literal>`: the terms that end with this, a range of the dictionary's reversed-term index. */
  suffix?: string;
}

const TRIGRAM = /[\p{L}\p{N}]{3}/u;

/** `@timestamp` present and within [lo, hi] (epoch ms, null: open). */
export interface TsRange {
  lo: number | null;
  hi: number | null;
}

type Item = { source: PostingSource } | { ts: TsRange };

/** Documents that match every `pos` item and no `neg` item (`pos` empty: every document). */
export interface PostingConjunction {
  pos: Item[];
  neg: Item[];
}

export interface PostingPlan {
  /** null: the query matches nothing. */
  conjunction: PostingConjunction | null;
  /** Only documents whose `deleted` holds false (the `live` column). */
  liveOnly: boolean;
}

type Expr =
  | { k: "none" }
  | { k: "all" }
  | { k: "item"; item: Item }
  | { k: "and"; pos: Expr[]; neg: Expr[] }
  | { k: "or"; parts: Expr[] };

class Unsupported extends Error {}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const NONE: Expr = { k: "none" };

export function planPostings(req: SearchRequest, now: number): PostingPlan | null {
  // Newest first, or oldest first: its exact reverse, the postings index read backwards.
  if (req.sort.field !== "@timestamp") return null;
  let liveOnly = false;
  for (const [field, value] of Object.entries(req.filters ?? {})) {
    if (field !== "deleted" || (value !== false && value !== "false")) return null;
    liveOnly = true;
  }
  try {
    const expr = new Planner(req.index, req.defaultFields, now).node(req.query);
    return { conjunction: expr === null ? null : conjunction(expr), liveOnly };
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

const source = (keys: string[], ranges: PostingSource["ranges"] = [], patterns?: TermPattern[]): Expr => ({
  k: "item",
  item: { source: patterns ? { keys, ranges, patterns } : { keys, ranges } },
});
const pattern = (p: TermPattern): Expr => source([], [], [p]);
const inclusive = (lo: string, hi: string): KeyRange => ({ lo, hi, loInclusive: true, hiInclusive: true });

/** The key range of the terms of a keyword or text field that start with `prefix`. */
function termsRange(index: IndexName, key: string, prefix: string): KeyRange {
  const [lo, hi] = prefixRange(index, key, prefix);
  return { ...inclusive(lo, hi), terms: { field: dictionaryField(index, key), prefix } };
}

/** Flattens to one conjunction; null when nothing matches. */
function conjunction(expr: Expr): PostingConjunction | null {
  switch (expr.k) {
    case "none":
      return null;
    case "all":
      return { pos: [], neg: [] };
    case "item":
      return { pos: [expr.item], neg: [] };
    case "or": {
      const parts = expr.parts.map(conjunction).filter((c): c is PostingConjunction => c !== null);
      if (parts.length === 0) return null;
      if (parts.some((c) => c.pos.length === 0 && c.neg.length === 0)) return { pos: [], neg: [] };
      const merged: PostingSource = { keys: [], ranges: [] };
      for (const c of parts) {
        const only = c.pos[0];
        if (c.pos.length !== 1 || c.neg.length !== 0 || only === undefined || !("source" in only)) throw new Unsupported();
        merged.keys.push(...only.source.keys);
        merged.ranges.push(...only.source.ranges);
        if (only.source.patterns) merged.patterns = [...(merged.patterns ?? []), ...only.source.patterns];
      }
      merged.keys = [...new Set(merged.keys)];
      return { pos: [{ source: merged }], neg: [] };
    }
    case "and": {
      const out: PostingConjunction = { pos: [], neg: [] };
      for (const p of expr.pos) {
        const c = conjunction(p);
        if (c === null) return null;
        out.pos.push(...c.pos);
        out.neg.push(...c.neg);
      }
      for (const n of expr.neg) {
        const c = conjunction(n);
        if (c === null) continue;
        if (c.pos.length === 0 && c.neg.length === 0) return null;
        if (c.pos.length !== 1 || c.neg.length !== 0) throw new Unsupported();
        out.neg.push(c.pos[0]!);
      }
      return out;
    }
  }
}

/**
 * Postings that every match of `query` has, one source each (empty: none known): the JSONB path's
 * candidates (`./statements.ts` `jsonbDriver`: the one with the fewest postings may drive). A
 * superset of the matches: leaves the postings cannot answer and every negated clause are left out
 * (match anything); an OR gives one source only when each of its clauses has one. Exact keys only:
 * patterns are left to the compiler (`./compile.ts` `matchingTerm`), `@timestamp` to the ts index,
 * and key ranges to the row's own test (a range scan of the postings per document was slower than
 * the test: `timestamp range (long)` 20 -> 47 ms at 20,000 attributes).
 */
export function candidateSources(index: IndexName, defaultFields: string[], now: number, query: LuceneNode): PostingSource[] {
  const expr = new Planner(index, defaultFields, now, true).node(query);
  return expr === null ? [] : (sourcesOf(expr) ?? []);
}

/** The sources of exact keys all of which a match of `expr` has; null: any document may match. */
function sourcesOf(expr: Expr): PostingSource[] | null {
  switch (expr.k) {
    case "none":
      return [{ keys: [], ranges: [] }];
    case "all":
      return null;
    case "item":
      return "source" in expr.item && !expr.item.source.patterns && expr.item.source.ranges.length === 0 ? [expr.item.source] : null;
    case "and": {
      const all = expr.pos.flatMap((e) => sourcesOf(e) ?? []);
      return all.length ? all : null;
    }
    case "or": {
      const merged: PostingSource = { keys: [], ranges: [] };
      for (const part of expr.parts) {
        const first = sourcesOf(part)?.[0];
        if (first === undefined) return null;
        merged.keys.push(...first.keys);
      }
      merged.keys = [...new Set(merged.keys)];
      return [merged];
    }
  }
}

class Planner {
  /** Decides types, leniency and dropped clauses exactly as the JSONB path does. */
  private readonly checker: SqlCompiler;

  /** `loose`: candidates only (`candidateSources`): what the postings cannot answer matches anything. */
  constructor(
    private readonly index: IndexName,
    defaultFields: string[],
    private readonly now: number,
    private readonly loose = false,
  ) {
    this.checker = new SqlCompiler(index, defaultFields, now);
  }

  /** In a loose plan, what the postings cannot answer is any document. */
  private orAll(plan: () => Expr): Expr {
    try {
      return plan();
    } catch (err) {
      if (this.loose && err instanceof Unsupported) return { k: "all" };
      throw err;
    }
  }

  /** null: a clause that analyses to nothing (dropped from its bool, as the JSONB path does). */
  node(node: LuceneNode): Expr | null {
    switch (node.kind) {
      case "matchAll":
        return { k: "all" };
      case "exists":
        return this.orAll(() => this.exists(node.field));
      case "bool": {
        const list = (xs: LuceneNode[]) => xs.map((n) => this.node(n)).filter((e): e is Expr => e !== null);
        const must = list(node.must);
        const should = must.length ? [] : list(node.should);
        const mustNot = list(node.mustNot);
        if (must.length + should.length + mustNot.length === 0) return null;
        // Loose: without its negations a conjunction holds for more documents, never fewer.
        return { k: "and", pos: must.length ? must : should.length ? [{ k: "or", parts: should }] : [], neg: this.loose ? [] : mustNot };
      }
      default:
        return this.fieldLeaf(node);
    }
  }

  private fieldLeaf(node: TermNode | PhraseNode | RegexNode | RangeNode): Expr | null {
    const { fields } = this.checker.resolve(node.field);
    if (fields.length === 0) return NONE;
    const parts: Expr[] = [];
    for (const f of fields) {
      let cond: string | null;
      try {
        cond = this.checker.leaf(node, f);
      } catch (err) {
        // A strict field has already failed the whole query; a lenient one matches nothing.
        if (!(err instanceof FieldTypeError)) throw err;
        parts.push(NONE);
        continue;
      }
      if (cond !== null) parts.push(this.orAll(() => this.leaf(node, f.key, f.type)));
    }
    if (parts.length === 0) return null;
    return parts.length === 1 ? parts[0]! : { k: "or", parts };
  }

  private leaf(node: TermNode | PhraseNode | RegexNode | RangeNode, key: string, type: FieldType): Expr {
    if (!hasPostings(key, type)) throw new Unsupported();
    switch (node.kind) {
      case "term":
        if (node.wildcard) return this.wildcard(node.pattern, key, type);
        return this.term(node.value, key, type);
      case "phrase": {
        if (type !== "text") return this.term(node.value, key, type);
        const tokens = analyze(node.value);
        if (tokens.length === 1) return source([termKey(this.index, key, tokens[0]!)]);
        if (node.slop > 0) {
          if (!this.loose) throw new Unsupported();
          return { k: "and", pos: [...new Set(tokens)].map((t) => source([termKey(this.index, key, t)])), neg: [] };
        }
        if (tokens.length === 2 && termFits(`${tokens[0]} ${tokens[1]}`)) return source([pairKey(this.index, key, tokens[0]!, tokens[1]!)]);
        if (!this.loose) throw new Unsupported();
        // Every adjacent pair of the phrase (a pair over MAX_TERM is capped: a superset still).
        return { k: "and", pos: tokens.slice(1).map((t, i) => source([pairKey(this.index, key, tokens[i]!, t)])), neg: [] };
      }
      case "regex": {
        // The compiler has accepted the regex for this field (a text or keyword one).
        const normalised = regexAsNormalised(node.pattern, type);
        const re = luceneRegexToPostgres(normalised);
        if (re.minLength > re.maxLength) return NONE;
        // Literal runs only: bracket classes, repetition counts and class escapes are no literals.
        const literals = normalised.replace(/\[(?:\\.|[^\]])*\]|\{[^}]*\}|\\[dDwWsS]/g, " ");
        // `loose` is exact with the length bounds, which the dictionary lookup applies when finite.
        const regex = re.loose ?? re.anchored;
        return pattern({ field: dictionaryField(this.index, key), regex, minLength: re.minLength, maxLength: re.maxLength, trigrams: TRIGRAM.test(literals) });
      }
      case "range":
        return this.range(node, key, type);
    }
  }

  private term(value: string, key: string, type: string): Expr {
    switch (type) {
      case "text":
        return source([...new Set(analyze(value))].map((t) => termKey(this.index, key, t)));
      case "keyword":
        if (!termFits(value)) throw new Unsupported();
        return source([termKey(this.index, key, value)]);
      case "long": {
        const t = value.trim();
        const n = Number(t);
        if (!Number.isInteger(n)) return NONE;
        return source([termKey(this.index, key, longTerm(/^[+-]?\d+$/.test(t) ? BigInt(t) : BigInt(n)))]);
      }
      case "boolean":
        return source([termKey(this.index, key, value)]);
      case "date":
        return this.range({ kind: "range", field: key, lower: value, upper: value, includeLower: true, includeUpper: true }, key, type);
      case "ip": {
        if (value.includes("/")) {
          const [lo, hi] = cidrTerms(parseCidr(value)!);
          return source([], [inclusive(termKey(this.index, key, lo), termKey(this.index, key, hi))]);
        }
        return source([termKey(this.index, key, ipTerm(parseIp(value)!))]);
      }
      default:
        throw new Unsupported();
    }
  }

  /** `abc*` (a literal prefix, then one `*`): a key range; other patterns: the dictionary. */
  private wildcard(raw: string, key: string, type: string): Expr {
    if (type !== "text" && type !== "keyword") throw new Unsupported();
    const normalised = type === "text" ? lowerCase(raw) : raw;
    // The literal prefix, and the pattern's length without its `*`s (an escape is one character).
    let literal: string | null = "";
    let length = 0;
    let stars = 0;
    const cps = [...normalised];
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i]!;
      if (ch === "*") {
        stars++;
        if (i < cps.length - 1) literal = null;
        continue;
      }
      length++;
      const escaped = ch === "\\" && i + 1 < cps.length;
      const char = escaped ? cps[++i]! : ch;
      if (literal === null || stars > 0 || (!escaped && ch === "?")) literal = null;
      else literal += char;
    }
    if (literal && stars === 1 && cps[cps.length - 1] === "*") {
      if (!termFits(literal)) throw new Unsupported();
      return source([], [termsRange(this.index, key, literal)]);
    }
    const literals = normalised.replace(/\\(.)/gu, "$1").replace(/[*?]/g, " ");
    const ending = /^\*+((?:\\.|[^*?\\])+)$/su.exec(normalised)?.[1];
    return pattern({
      field: dictionaryField(this.index, key),
      like: wildcardToLike(normalised),
      minLength: length,
      maxLength: stars ? Infinity : length,
      trigrams: TRIGRAM.test(literals),
      ...(ending === undefined ? {} : { suffix: ending.replace(/\\(.)/gsu, "$1") }),
    });
  }

  private range(node: RangeNode, key: string, type: string): Expr {
    if (node.lower === null && node.upper === null) return this.exists(key);
    const [fieldLo, fieldHi] = prefixRange(this.index, key, "");
    switch (type) {
      case "long":
      case "date": {
        const { lo, hi } = type === "long" ? longRangeBounds(node, key) : dateRangeBounds(node, key, this.now);
        if (key === "@timestamp") return { k: "item", item: { ts: { lo, hi } } };
        // The decimal text the JSONB path compares; infinite bounds are open or empty.
        const big = (n: number | null, open: number) => (n === null || n === open ? null : n === -open ? (open < 0 ? LONG_MAX + 1n : LONG_MIN - 1n) : BigInt(Math.abs(n) < 1e21 ? String(n) : n));
        const l = big(lo, -Infinity);
        const h = big(hi, Infinity);
        if ((l !== null && l > LONG_MAX) || (h !== null && h < LONG_MIN)) return NONE;
        if (l !== null && h !== null && l > h) return NONE;
        const term = (n: bigint) => termKey(this.index, key, longTerm(n < LONG_MIN ? LONG_MIN : n > LONG_MAX ? LONG_MAX : n));
        return source([], [{ ...inclusive(l === null ? fieldLo : term(l), h === null ? fieldHi : term(h)), numeric: true }]);
      }
      case "ip": {
        const bound = (v: string | null) => (v === null ? null : termKey(this.index, key, ipTerm(parseIp(v)!)));
        const lo = bound(node.lower);
        const hi = bound(node.upper);
        return source([], [{ lo: lo ?? fieldLo, hi: hi ?? fieldHi, loInclusive: lo === null || node.includeLower, hiInclusive: hi === null || node.includeUpper }]);
      }
      default:
        throw new Unsupported();
    }
  }

  private exists(field: string): Expr {
    let fields = this.checker.resolve(field).fields;
    if (fields.length === 0 && !field.includes("*")) {
      fields = this.checker.resolve(`${field}.*`).fields;
    }
    if (fields.length === 0) return NONE;
    const parts: Expr[] = [];
    for (const f of fields) {
      if (f.key === "@timestamp") parts.push({ k: "item", item: { ts: { lo: null, hi: null } } });
      else if (!hasPostings(f.key, f.type)) throw new Unsupported();
      else {
        const present = presenceKey(this.index, f.key);
        if (present !== null) {
          parts.push(source([present]));
          continue;
        }
        const keys = presentThrough(this.index, f.key);
        const dictionary = f.type === "text" || f.type === "keyword";
        parts.push(source([], keys.map((k) => (dictionary ? termsRange(this.index, k, "") : inclusive(...prefixRange(this.index, k, ""))))));
      }
    }
    return parts.length === 1 ? parts[0]! : { k: "or", parts };
  }
}

