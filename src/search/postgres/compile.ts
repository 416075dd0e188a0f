/**
 * Lucene AST (`../lucene/ast.ts`) -> a parameterised SQL condition over `search_documents d`
 * (columns described in `./documents.ts`), with OpenSearch `query_string` semantics per field type
 * (`../fields.ts`).
 *
 * SAFETY: the SQL text is built only from constant fragments and `$n` placeholders. Every value
 * from the query (terms, patterns, bounds, even field names, which are additionally restricted to
 * the fields.ts allowlist) is a bind parameter. Nothing the user typed is ever spliced into SQL.
 *
 * Semantics (see ast.ts for the boolean rules):
 * - A leaf that analyses to nothing (`info:"--"`, a phrase of punctuation) is DROPPED from its bool,
 *   as Lucene's QueryParser drops null clauses; a query that drops entirely matches nothing.
 * - A field not in fields.ts (nor a `.keyword` sub-field of a text field) matches nothing, as an
 *   unmapped field in OpenSearch (so `-unknown:x` matches everything). `expanded.ip2geo.*` is not in
 *   fields.ts, so it is such a field.
 * - Field patterns (`tags.*:x`, `*:x`) expand over fields.ts names and text `.keyword` sub-fields
 *   (all types, as OpenSearch's expansion). Default fields are lenient: a value a field type
 *   cannot take (`abc` on a long) is no match for that field. Explicit fields and patterns are
 *   strict, as OpenSearch: `distribution:abc`, `distribution:a*`, `*:abc` (a long among the
 *   matched fields), `@timestamp:[x TO y]` with a bad date raise FieldTypeError (-> 400) - unless
 *   the default fields are all fields (none or `*`): then OpenSearch's query_string is lenient
 *   everywhere and so is this compiler.
 * - text: term -> OR of its analysed tokens; phrase -> consecutive tokens within one value;
 *   wildcard -> the pattern lower-cased (OpenSearch normalises wildcard terms on text fields)
 *   matched against single tokens; regex -> lower-cased as a whole (OpenSearch normalises the
 *   regex text, so `[A-Z]` becomes `[a-z]` and `\W` becomes `\w`), against single tokens; range -> bounds
 *   lower-cased, compared with tokens in code point order.
 * - keyword (and `text.keyword`): exact, case-sensitive whole value for terms, phrases, wildcards,
 *   regexes; ranges in code point order (`COLLATE "C"`).
 * - long: exact integer (a fractional term matches nothing, as OpenSearch); ranges round bounds.
 * - date: a term is the range [v TO v]; bounds with date math and OpenSearch's rounding rules
 *   (`./dates.ts`); `@timestamp` uses the `ts` column (btree).
 * - ip: address (exact) or CIDR (`10.0.0.0/8`, containment), ranges by address order.
 * - ip_range: a term is one address (a CIDR block is a type error, as OpenSearch) and matches the
 *   ranges that contain it; a range `[a TO b]` matches the ranges that intersect it.
 * - boolean: `true` / `false`.
 * - Boosts do not change hit sets. Fuzzy terms (`term~`) are replaced by their expansions before
 *   compiling (`./fuzzy.ts`); one that reaches this compiler is refused. Phrase slop (`"a b"~2`):
 *   Lucene's sloppy phrase matching (`./phrase-slop.ts`).
 */
import type { BoolNode, LuceneNode, PhraseNode, RangeNode, RegexNode, TermNode } from "../lucene/ast.ts";
import { INDEX_FIELDS, type FieldType } from "../fields.ts";
import type { IndexName, SearchAccess } from "../search-index.ts";
import { analyze, lowerCase } from "./analyzer.ts";
import { parseDateMath } from "./dates.ts";
import { parseCidr, parseIp } from "./ip.ts";
import { visibleToParam } from "./access.ts";
import { SLOPPY_PHRASE_FUNCTION } from "./phrase-slop.ts";
import { dictionaryField, hasPostings, MAX_TERM } from "./postings.ts";
import { luceneRegexToPostgres, RegexUnsupported } from "./regex.ts";
import { presenceCondition, presenceIndexed, UNPOSTED, unposted } from "./unposted.ts";

/** The query cannot run on a field of this type (OpenSearch fails the query too: route -> 400). */
export class FieldTypeError extends Error {}

type Cond = string | null;

interface ResolvedField {
  /** Key in `d.fields` (`info`, `info.keyword`, `tags.name`). */
  key: string;
  /** Semantics (a `.keyword` sub-field is a keyword). */
  type: FieldType;
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const MAX_LONG = 9223372036854775807n;
const MIN_LONG = -9223372036854775808n;

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

/** Wildcard pattern (`*`, `?`, escapes `\*` `\?` `\\`) -> LIKE pattern with `\` as escape. */
export function wildcardToLike(pattern: string): string {
  let out = "";
  const cps = [...pattern];
  for (let i = 0; i < cps.length; i++) {
    let ch = cps[i]!;
    if (ch === "\\" && i + 1 < cps.length) {
      ch = cps[++i]!;
      out += ch === "%" || ch === "_" || ch === "\\" ? `\\${ch}` : ch;
      continue;
    }
    if (ch === "*") out += "%";
    else if (ch === "?") out += "_";
    else out += ch === "%" || ch === "_" || ch === "\\" ? `\\${ch}` : ch;
  }
  return out;
}

/**
 * A regex as OpenSearch's query_string matches it: on a text field its whole text goes through the
 * field's normaliser (lower case) before it is parsed, escapes and classes included; on a keyword
 * field it is used as written.
 */
export function regexAsNormalised(pattern: string, type: FieldType): string {
  return type === "text" ? lowerCase(pattern) : pattern;
}

/** A long range's inclusive integer bounds (null: open), as OpenSearch rounds fractional bounds. */
export function longRangeBounds(node: RangeNode, key: string): { lo: number | null; hi: number | null } {
  const num = (v: string) => {
    if (!NUMERIC.test(v.trim())) throw new FieldTypeError(`'${v}' is not a number (field ${key})`);
    return Number(v.trim());
  };
  return {
    lo: node.lower === null ? null : node.includeLower ? Math.ceil(num(node.lower)) : Math.floor(num(node.lower)) + 1,
    hi: node.upper === null ? null : node.includeUpper ? Math.floor(num(node.upper)) : Math.ceil(num(node.upper)) - 1,
  };
}

/** A date range's inclusive bounds in epoch ms (null: open), with date math and rounding. */
export function dateRangeBounds(node: RangeNode, key: string, now: number): { lo: number | null; hi: number | null } {
  const bound = (v: string, roundUp: boolean) => {
    const t = parseDateMath(v.trim(), roundUp, now);
    if (t === null) throw new FieldTypeError(`'${v}' is not a date or date math expression (field ${key})`);
    return t;
  };
  return {
    lo: node.lower === null ? null : bound(node.lower, !node.includeLower) + (node.includeLower ? 0 : 1),
    hi: node.upper === null ? null : bound(node.upper, node.includeUpper) - (node.includeUpper ? 0 : 1),
  };
}

export class SqlCompiler {
  readonly params: unknown[] = [];
  private readonly fields: Record<string, FieldType>;
  private readonly queryable: ResolvedField[];
  /** Default fields are all fields: OpenSearch's query_string is then lenient for every field. */
  private readonly lenientAll: boolean;
  /**
   * Wildcards and regexes are tested on the row only, without their dictionary candidates
   * (`matchingTerm`): set when a driver of few documents selects the rows (`./statements.ts`).
   * The candidates cost the pattern's matches in the whole dictionary and their postings, whatever
   * the rows (MISP value1's case-free regex and `*|*` type wildcard: 2.4-3.4 ms at 20,000
   * attributes for one candidate row).
   */
  patternsOnRow = false;

  constructor(
    private readonly index: IndexName,
    readonly defaultFields: string[],
    readonly now: number,
  ) {
    this.fields = INDEX_FIELDS[index].fields;
    this.lenientAll = defaultFields.length === 0 || defaultFields.includes("*");
    this.queryable = [];
    for (const [key, type] of Object.entries(this.fields)) {
      this.queryable.push({ key, type });
      if (type === "text") this.queryable.push({ key: `${key}.keyword`, type: "keyword" });
    }
  }

  /** A placeholder for a bind parameter. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  private contains(f: ResolvedField, value: unknown): string {
    return `${this.jsonb(f)} @> ${this.p(JSON.stringify({ [f.key]: [value] }))}::jsonb`;
  }

  /**
   * The JSONB a containment test on the field reads: a field without postings through the GIN's
   * expression (`./unposted.ts`); the others on the row, the postings giving the candidates
   * (`./statements.ts`, table version 12).
   */
  private jsonb(f: ResolvedField): string {
    return unposted(f.key, f.type) ? `${UNPOSTED}(d.fields)` : "d.fields";
  }

  /**
   * Some value of the field satisfies `predicate`. Only documents that have the field are unpacked
   * (`hasAnyKey`: ip ranges exist in few documents, found by the GIN's presence entry).
   */
  private anyValue(key: string, type: FieldType, predicate: (x: string) => string, asText = true): string {
    const fn = asText ? "jsonb_array_elements_text" : "jsonb_array_elements";
    const has = this.hasAnyKey([{ key, type }]);
    const k = this.p(key);
    return `(${has} AND EXISTS (SELECT 1 FROM ${fn}(d.fields -> ${k}) AS x(v) WHERE ${predicate("x.v")}))`;
  }

  /**
   * Some value (a keyword field) or token (a text field) satisfies `test`, a wildcard or regex. The
   * candidates are the documents with a posting of a dictionary term that satisfies it (the term
   * dictionary's trigram index, `./terms.ts`): the terms are the values and tokens, so the set is
   * exact but for capped terms (over MAX_TERM, their ends unknown: always candidates), which the
   * per-value test then settles. Fields without postings (identifiers) are tested row by row.
   * The dictionary's terms are tested in their own `C` collation, so that its trigram index serves the
   * test (with `COLLATE "default"` it cannot: 58.5 ms instead of 2.3 ms over 100,000 terms). The
   * tests mean the same in either collation: LIKE compares characters, and the translated regexes
   * (`./regex.ts`) hold only literals, `.` and code point ranges, no collation-dependent class nor
   * case folding. The row test alone means the same (the candidates are a superset of its matches).
   */
  private matchingTerm(f: ResolvedField, test: (x: string) => string): string {
    const exact = this.anyValue(f.key, f.type, test);
    if (!hasPostings(f.key, f.type) || this.patternsOnRow) return exact;
    const terms = `SELECT t.field || chr(1) || t.term FROM search_terms t
      WHERE t.field = ${this.p(dictionaryField(this.index, f.key))} AND (t.length > ${MAX_TERM} OR ${test("t.term")})`;
    // Both lists computed once (InitPlans): as a semi-join the planner may probe the postings once
    // per document, reading every matching term's postings each time (22 s for 10,000 unanalysed rows).
    return `d.doc = ANY (ARRAY(SELECT p.doc FROM search_postings p WHERE p.key = ANY (ARRAY(${terms})))) AND ${exact}`;
  }

  /**
   * The document has one of these fields: on the row, the optional fields without postings written
   * as their partial index's predicate (`./unposted.ts`, table version 13), so that their few
   * documents are found by it (the other fields' presence candidates come from the postings).
   */
  private hasAnyKey(fields: ResolvedField[]): string {
    const onRow = fields.filter((f) => !presenceIndexed(f.key)).map((f) => f.key);
    const conds = fields.filter((f) => presenceIndexed(f.key)).map((f) => presenceCondition(f.key));
    if (onRow.length) conds.push(`d.fields ?| ${this.p(onRow)}::text[]`);
    return conds.length === 1 ? conds[0]! : `(${conds.join(" OR ")})`;
  }

  /** The whole query; a query that compiles to nothing matches nothing. */
  compileQuery(node: LuceneNode): string {
    return this.node(node) ?? "FALSE";
  }

  /**
   * `{ field: value }` exact filters (text fields compare on `.keyword`), lenient. A boolean filter
   * (Explore's `deleted: false`) holds for nearly every document: it is tested on the rows the rest
   * of the query selects, in a form the GIN index cannot take, because as an index condition it
   * would read a posting list of every document.
   */
  compileFilter(field: string, value: string | number | boolean): string {
    if (this.fields[field] === "boolean" && (value === true || value === false || value === "true" || value === "false")) {
      return `(d.fields -> ${this.p(field)}) @> ${this.p(JSON.stringify([value === true || value === "true"]))}::jsonb`;
    }
    const key = this.fields[field] === "text" ? `${field}.keyword` : field;
    const node: TermNode = { kind: "term", field: key, value: String(value), wildcard: false };
    const f = this.resolve(key).fields[0];
    if (!f) return "FALSE";
    const mark = this.params.length;
    try {
      return this.leaf(node, f) ?? "FALSE";
    } catch (err) {
      this.params.length = mark;
      if (err instanceof FieldTypeError) return "FALSE";
      throw err;
    }
  }

  /** Non-administrators: documents for everyone, their organisation or its sharing groups (`./access.ts`). */
  compileAccess(access: SearchAccess): string {
    return `d.visible_to && ${this.p(visibleToParam(access))}::numeric[]`;
  }

  private node(node: LuceneNode): Cond {
    switch (node.kind) {
      case "matchAll":
        return "TRUE";
      case "bool":
        return this.bool(node);
      case "exists":
        return this.exists(node.field);
      default:
        return this.fieldLeaf(node);
    }
  }

  private bool(node: BoolNode): Cond {
    const compile = (list: LuceneNode[]) => list.map((n) => this.node(n)).filter((c): c is string => c !== null);
    const must = compile(node.must);
    // With a required clause, should clauses only score: not compiled (no unused parameters).
    const should = must.length ? [] : compile(node.should);
    const mustNot = compile(node.mustNot);
    if (must.length + should.length + mustNot.length === 0) return null;
    const parts: string[] = [];
    if (must.length) parts.push(...must.map((c) => `(${c})`));
    else if (should.length) parts.push(`(${should.map((c) => `(${c})`).join(" OR ")})`);
    for (const c of mustNot) parts.push(`NOT (${c})`);
    return parts.join(" AND ");
  }

  /** Fields a leaf applies to; `lenient` for default fields and patterns. */
  resolve(field: string | null): { fields: ResolvedField[]; lenient: boolean } {
    if (field === null) {
      if (this.defaultFields.length === 0) return this.resolve("*");
      const out = this.defaultFields.flatMap((f) => this.resolve(f).fields);
      return { fields: out, lenient: true };
    }
    if (field.includes("*")) {
      const re = globToRegExp(field);
      // As OpenSearch: a pattern is lenient only when the default fields are all fields; otherwise a
      // matched field that cannot take the value (a date, a boolean, an ip) fails the query.
      return { fields: this.queryable.filter((f) => re.test(f.key)), lenient: this.lenientAll };
    }
    const f = this.queryable.find((q) => q.key === field);
    return { fields: f ? [f] : [], lenient: this.lenientAll };
  }

  private fieldLeaf(node: TermNode | PhraseNode | RegexNode | RangeNode): Cond {
    const { fields, lenient } = this.resolve(node.field);
    if (fields.length === 0) return "FALSE";
    const conds: string[] = [];
    for (const f of fields) {
      let c: Cond;
      const mark = this.params.length;
      try {
        c = this.leaf(node, f);
      } catch (err) {
        if (!(lenient && err instanceof FieldTypeError)) throw err;
        // Parameters pushed before the failure are not referenced: drop them.
        this.params.length = mark;
        c = "FALSE";
      }
      if (c !== null) conds.push(c);
    }
    if (conds.length === 0) return null;
    return conds.length === 1 ? conds[0]! : conds.map((c) => `(${c})`).join(" OR ");
  }

  private exists(field: string): Cond {
    let fields = this.resolve(field).fields;
    if (fields.length === 0 && !field.includes("*")) {
      // An object field (`tags`, `expanded`): exists when any of its sub-fields does.
      fields = this.queryable.filter((q) => q.key.startsWith(`${field}.`));
    }
    if (fields.length === 0) return "FALSE";
    return this.hasAnyKey(fields);
  }

  leaf(node: TermNode | PhraseNode | RegexNode | RangeNode, f: ResolvedField): Cond {
    switch (node.kind) {
      case "term":
        if (node.wildcard) return this.wildcard(node.pattern, f);
        if (node.fuzzy !== undefined) throw new Error("fuzzy terms are expanded against the term dictionary before compiling (./fuzzy.ts)");
        return this.term(node.value, f);
      case "phrase":
        return this.phrase(node, f);
      case "regex":
        return this.regex(node.pattern, f);
      case "range":
        return this.range(node, f);
    }
  }

  private term(value: string, f: ResolvedField): Cond {
    switch (f.type) {
      case "text": {
        const tokens = [...new Set(analyze(value))];
        if (tokens.length === 0) return null;
        return tokens.map((t) => this.contains(f, t)).join(" OR ");
      }
      case "keyword":
        return this.contains(f, value);
      case "long": {
        const t = value.trim();
        if (!NUMERIC.test(t)) throw new FieldTypeError(`'${value}' is not a number (field ${f.key})`);
        const n = Number(t);
        if (!Number.isInteger(n)) return "FALSE";
        const big = /^[+-]?\d+$/.test(t) ? BigInt(t) : BigInt(n);
        if (big > MAX_LONG || big < MIN_LONG) throw new FieldTypeError(`'${value}' is out of range for a long (field ${f.key})`);
        return `${this.jsonb(f)} @> jsonb_build_object(${this.p(f.key)}::text, jsonb_build_array(${this.p(big.toString())}::numeric))`;
      }
      case "boolean": {
        if (value !== "true" && value !== "false") throw new FieldTypeError(`'${value}' is not a boolean (field ${f.key})`);
        return this.contains(f, value === "true");
      }
      case "date":
        return this.range({ kind: "range", field: f.key, lower: value, upper: value, includeLower: true, includeUpper: true }, f);
      case "ip": {
        if (value.includes("/")) {
          const cidr = parseCidr(value);
          if (cidr === null) throw new FieldTypeError(`'${value}' is not an IP address or CIDR block (field ${f.key})`);
          return this.anyValue(f.key, f.type, (x) => `${x}::inet <<= ${this.p(cidr)}::inet`);
        }
        const ip = parseIp(value);
        if (ip === null) throw new FieldTypeError(`'${value}' is not an IP address (field ${f.key})`);
        return this.contains(f, ip);
      }
      case "ip_range": {
        // A term is one address (OpenSearch rejects a CIDR block here: "is not an IP string literal").
        const ip = parseIp(value);
        if (ip === null) throw new FieldTypeError(`'${value}' is not an IP address (field ${f.key})`);
        return this.anyValue(f.key, f.type, (x) => `${x}::inet >>= ${this.p(ip)}::inet`);
      }
    }
  }

  private phrase(node: PhraseNode, f: ResolvedField): Cond {
    if (f.type !== "text") return this.term(node.value, f);
    const tokens = analyze(node.value);
    if (tokens.length === 0) return null;
    if (tokens.length === 1) return this.contains(f, tokens[0]);
    const candidates = `${this.jsonb(f)} @> ${this.p(JSON.stringify({ [f.key]: [...new Set(tokens)] }))}::jsonb`;
    const key = this.p(f.key);
    const within = (needles: string[][]) =>
      `EXISTS (SELECT 1 FROM jsonb_array_elements_text(d.phrases -> ${key}) AS x(v) WHERE ${needles.map((n) => `strpos(x.v, ${this.p(` ${n.join(" ")} `)}) > 0`).join(" OR ")})`;
    if (node.slop === 0) return `${candidates} AND ${within([tokens])}`;
    // The phrase as written matches at any slop, and two tokens swapped cost two moves: a search
    // of the value's text (~1 us) settles most sloppy matches before the function (~30 us a row).
    const exact = tokens.length === 2 && node.slop >= 2 && tokens[0] !== tokens[1] ? [tokens, [tokens[1]!, tokens[0]!]] : [tokens];
    return `${candidates} AND (${within(exact)} OR ${SLOPPY_PHRASE_FUNCTION}(d.phrases -> ${key}, ${this.p(tokens)}::text[], ${this.p(node.slop)}::int))`;
  }

  private wildcard(pattern: string, f: ResolvedField): Cond {
    if (f.type !== "text" && f.type !== "keyword") {
      throw new FieldTypeError(`wildcard queries need a text or keyword field, ${f.key} is ${f.type}`);
    }
    const normalised = f.type === "text" ? lowerCase(pattern) : pattern;
    const like = wildcardToLike(normalised);
    return this.matchingTerm(f, (x) => `${x} LIKE ${this.p(like)}`);
  }

  private regex(pattern: string, f: ResolvedField): Cond {
    if (f.type !== "text" && f.type !== "keyword") {
      throw new FieldTypeError(`regular expressions need a text or keyword field, ${f.key} is ${f.type}`);
    }
    let re: { anchored: string; unanchored: string };
    try {
      re = luceneRegexToPostgres(regexAsNormalised(pattern, f.type));
    } catch (err) {
      if (err instanceof RegexUnsupported) throw new FieldTypeError(`Unsupported regular expression: ${err.message}`);
      throw err;
    }
    return this.matchingTerm(f, (x) => `${x} ~ ${this.p(re.anchored)}`);
  }

  private range(node: RangeNode, f: ResolvedField): Cond {
    const { lower, upper, includeLower, includeUpper } = node;
    if (lower === null && upper === null) return this.exists(f.key);
    switch (f.type) {
      case "long": {
        const { lo, hi } = longRangeBounds(node, f.key);
        const preds: string[] = [];
        if (lo !== null) preds.push(`(x.v)::numeric >= ${this.p(String(lo))}::numeric`);
        if (hi !== null) preds.push(`(x.v)::numeric <= ${this.p(String(hi))}::numeric`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "), false);
      }
      case "date": {
        const { lo: l, hi: u } = dateRangeBounds(node, f.key, this.now);
        if (f.key === "@timestamp") {
          const preds = ["d.ts IS NOT NULL"];
          if (l !== null) preds.push(`d.ts >= ${this.p(new Date(l).toISOString())}::timestamptz`);
          if (u !== null) preds.push(`d.ts <= ${this.p(new Date(u).toISOString())}::timestamptz`);
          return preds.join(" AND ");
        }
        const preds: string[] = [];
        if (l !== null) preds.push(`(x.v)::numeric >= ${this.p(String(l))}::numeric`);
        if (u !== null) preds.push(`(x.v)::numeric <= ${this.p(String(u))}::numeric`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "), false);
      }
      case "ip": {
        const ip = (v: string) => {
          const r = parseIp(v);
          if (r === null) throw new FieldTypeError(`'${v}' is not an IP address (field ${f.key})`);
          return r;
        };
        const preds: string[] = [];
        if (lower !== null) preds.push(`x.v::inet ${includeLower ? ">=" : ">"} ${this.p(ip(lower))}::inet`);
        if (upper !== null) preds.push(`x.v::inet ${includeUpper ? "<=" : "<"} ${this.p(ip(upper))}::inet`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "));
      }
      case "keyword":
      case "text": {
        const norm = (v: string) => (f.type === "text" ? lowerCase(v) : v);
        const preds: string[] = [];
        if (lower !== null) preds.push(`x.v COLLATE "C" ${includeLower ? ">=" : ">"} ${this.p(norm(lower))}`);
        if (upper !== null) preds.push(`x.v COLLATE "C" ${includeUpper ? "<=" : "<"} ${this.p(norm(upper))}`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "));
      }
      case "boolean": {
        const b = (v: string) => {
          if (v !== "true" && v !== "false") throw new FieldTypeError(`'${v}' is not a boolean (field ${f.key})`);
          return v;
        };
        const preds: string[] = [];
        if (lower !== null) preds.push(`(x.v)::boolean ${includeLower ? ">=" : ">"} ${this.p(b(lower))}::boolean`);
        if (upper !== null) preds.push(`(x.v)::boolean ${includeUpper ? "<=" : "<"} ${this.p(b(upper))}::boolean`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "), false);
      }
      case "ip_range": {
        // Ranges that intersect [lower, upper] (OpenSearch's default relation).
        const ip = (v: string) => {
          const r = parseIp(v);
          if (r === null) throw new FieldTypeError(`'${v}' is not an IP address (field ${f.key})`);
          return r;
        };
        const preds: string[] = [];
        const last = (x: string) => `host(broadcast(${x}::inet))::inet`;
        const first = (x: string) => `host(network(${x}::inet))::inet`;
        if (lower !== null) preds.push(`${last("x.v")} ${includeLower ? ">=" : ">"} ${this.p(ip(lower))}::inet`);
        if (upper !== null) preds.push(`${first("x.v")} ${includeUpper ? "<=" : "<"} ${this.p(ip(upper))}::inet`);
        return this.anyValue(f.key, f.type, () => preds.join(" AND "));
      }
    }
  }
}
