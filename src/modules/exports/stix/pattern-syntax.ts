/**
 * A parser of the STIX 2.1 patterning language (the grammar of oasis-open/cti-stix2-json-schemas
 * `pattern_grammar/STIXPattern.g4`, hand-written: the JSON schemas do not look inside patterns).
 * The exporter checks hand-written patterns (`stix2-pattern` attributes) with it before exporting
 * them, and the tests check every pattern the exporter builds.
 *
 * Beyond the grammar it enforces the rule of the specification that comparisons joined by AND
 * within one observation are on the same object type.
 */

export type PatternLiteral =
  | { kind: "string"; value: string }
  | { kind: "int" | "float"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "hex" | "binary" | "timestamp"; value: string };

export interface PatternComparison {
  objectType: string;
  /** Steps after the object type: property names, list indexes, `*` for any index. */
  path: (string | number)[];
  negated: boolean;
  operator: string;
  /** A list for IN, null for EXISTS. */
  value: PatternLiteral | PatternLiteral[] | null;
}

export interface ParsedPattern {
  observations: number;
  comparisons: PatternComparison[];
}

export class PatternSyntaxError extends Error {}

type Token =
  | { t: "punct"; v: string; at: number }
  | { t: "op"; v: string; at: number }
  | { t: "kw"; v: string; at: number }
  | { t: "ident"; v: string; hyphen: boolean; at: number }
  | { t: "lit"; v: PatternLiteral; positive: boolean; at: number }
  | { t: "end"; at: number };

const KEYWORDS = new Set([
  "AND", "OR", "NOT", "FOLLOWEDBY", "LIKE", "MATCHES", "ISSUPERSET", "ISSUBSET", "EXISTS", "LAST", "IN", "START", "STOP", "SECONDS", "WITHIN", "REPEATS", "TIMES",
]);
const TIMESTAMP = /^\d{4}-(0[1-9]|1[012])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?Z$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)$/;
/** The grammar's whitespace: ASCII blanks and the Unicode spaces it lists. */
const SPACE = /[ \t\r\n\u000B\u000C\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

function fail(message: string, at: number): never {
  throw new PatternSyntaxError(`${message} at ${at}`);
}

/** Characters of a string literal up to its next quote or backslash. */
const PLAIN = /[^'\\]*/y;

/** The text of a quoted literal starting at `start` (on the quote) and where it ends. */
function quoted(s: string, start: number): { text: string; end: number } {
  let text = "";
  let i = start + 1;
  for (;;) {
    PLAIN.lastIndex = i;
    const run = PLAIN.exec(s)![0];
    text += run;
    i += run.length;
    const c = s[i];
    if (c === undefined) fail("unterminated string", start);
    if (c === "'") return { text, end: i + 1 };
    const next = s[i + 1];
    if (next !== "'" && next !== "\\") fail("invalid escape in string", i);
    text += next;
    i += 2;
  }
}

/** Sticky expressions: matched where the lexer stands, without copying the rest of the input. */
const NUMBER = /[+-]?(?:\d*\.\d+|0(?![0-9])|[1-9]\d*)/y;
const IDENTIFIER = /[a-zA-Z_][a-zA-Z0-9_-]*/y;
const OPERATOR = /==|!=|<>|<=|>=|=|<|>/y;

function sticky(re: RegExp, s: string, at: number): string | null {
  re.lastIndex = at;
  const m = re.exec(s);
  return m ? m[0] : null;
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (s.startsWith("/*", i)) {
      const end = s.indexOf("*/", i + 2);
      if (end < 0) fail("unterminated comment", i);
      i = end + 2;
      continue;
    }
    if (s.startsWith("//", i)) {
      while (i < s.length && s[i] !== "\n" && s[i] !== "\r") i++;
      continue;
    }
    const at = i;
    if ((c === "h" || c === "b" || c === "t") && s[i + 1] === "'") {
      const { text, end } = quoted(s, i + 1);
      if (c === "h" && !/^(?:[0-9A-Fa-f]{2})*$/.test(text)) fail("invalid hex literal", at);
      if (c === "b" && !BASE64.test(text)) fail("invalid binary literal", at);
      if (c === "t" && !TIMESTAMP.test(text)) fail("invalid timestamp literal", at);
      out.push({ t: "lit", v: { kind: c === "h" ? "hex" : c === "b" ? "binary" : "timestamp", value: text }, positive: false, at });
      i = end;
      continue;
    }
    if (c === "'") {
      const { text, end } = quoted(s, i);
      out.push({ t: "lit", v: { kind: "string", value: text }, positive: false, at });
      i = end;
      continue;
    }
    const text = /[+\-\d.]/.test(c) ? sticky(NUMBER, s, i) : null;
    if (text) {
      const isFloat = text.includes(".");
      out.push({ t: "lit", v: { kind: isFloat ? "float" : "int", value: Number(text) }, positive: !text.startsWith("-"), at });
      i += text.length;
      continue;
    }
    const word = sticky(IDENTIFIER, s, i);
    if (word) {
      if (word === "true" || word === "false") out.push({ t: "lit", v: { kind: "bool", value: word === "true" }, positive: false, at });
      else if (KEYWORDS.has(word)) out.push({ t: "kw", v: word, at });
      else out.push({ t: "ident", v: word, hyphen: word.includes("-"), at });
      i += word.length;
      continue;
    }
    const op = sticky(OPERATOR, s, i);
    if (op) {
      out.push({ t: "op", v: op === "==" ? "=" : op === "<>" ? "!=" : op, at });
      i += op.length;
      continue;
    }
    if ("[]():.,*".includes(c)) {
      out.push({ t: "punct", v: c, at });
      i++;
      continue;
    }
    fail(`unexpected character ${JSON.stringify(c)}`, at);
  }
  out.push({ t: "end", at: s.length });
  return out;
}

class Parser {
  private i = 0;
  readonly comparisons: PatternComparison[] = [];
  observations = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    return this.tokens[this.i++];
  }

  private is(t: Token["t"], v?: string): boolean {
    const tok = this.peek();
    return tok.t === t && (v === undefined || ("v" in tok && tok.v === v));
  }

  private accept(t: Token["t"], v: string): boolean {
    if (!this.is(t, v)) return false;
    this.i++;
    return true;
  }

  private expect(t: Token["t"], v: string): void {
    if (!this.accept(t, v)) fail(`expected ${v}`, this.peek().at);
  }

  pattern(): void {
    this.observationExpressions();
    if (!this.is("end")) fail("unexpected input", this.peek().at);
  }

  private observationExpressions(): void {
    do this.observationOr();
    while (this.accept("kw", "FOLLOWEDBY"));
  }

  private observationOr(): void {
    do this.observationAnd();
    while (this.accept("kw", "OR"));
  }

  private observationAnd(): void {
    do this.observation();
    while (this.accept("kw", "AND"));
  }

  private observation(): void {
    if (this.accept("punct", "[")) {
      this.observations++;
      this.comparisonExpression();
      this.expect("punct", "]");
    } else if (this.accept("punct", "(")) {
      this.observationExpressions();
      this.expect("punct", ")");
    } else fail("expected [ or (", this.peek().at);
    this.qualifiers();
  }

  private qualifiers(): void {
    for (;;) {
      if (this.accept("kw", "START")) {
        this.literalOf(["timestamp"]);
        this.expect("kw", "STOP");
        this.literalOf(["timestamp"]);
      } else if (this.accept("kw", "WITHIN")) {
        const lit = this.literalOf(["int", "float"]);
        if (!lit.positive) fail("WITHIN needs a positive number", this.peek().at);
        this.expect("kw", "SECONDS");
      } else if (this.accept("kw", "REPEATS")) {
        const lit = this.literalOf(["int"]);
        if (!lit.positive) fail("REPEATS needs a positive integer", this.peek().at);
        this.expect("kw", "TIMES");
      } else return;
    }
  }

  private literalOf(kinds: PatternLiteral["kind"][]): { v: PatternLiteral; positive: boolean } {
    const tok = this.next();
    if (tok.t !== "lit" || !kinds.includes(tok.v.kind)) fail(`expected a ${kinds.join(" or ")} literal`, tok.at);
    return { v: tok.v, positive: tok.positive };
  }

  /** The object types the expression compares (AND requires a single one). */
  private comparisonExpression(): Set<string> {
    const types = this.comparisonAnd();
    while (this.accept("kw", "OR")) for (const t of this.comparisonAnd()) types.add(t);
    return types;
  }

  private comparisonAnd(): Set<string> {
    const at = this.peek().at;
    const types = this.propTest();
    while (this.accept("kw", "AND")) for (const t of this.propTest()) types.add(t);
    if (types.size > 1) fail(`comparisons joined by AND are on different object types (${[...types].join(", ")})`, at);
    return types;
  }

  private propTest(): Set<string> {
    if (this.accept("punct", "(")) {
      const types = this.comparisonExpression();
      this.expect("punct", ")");
      return types;
    }
    const negatedExists = this.accept("kw", "NOT");
    if (this.accept("kw", "EXISTS")) {
      const { objectType, path } = this.objectPath();
      this.comparisons.push({ objectType, path, negated: negatedExists, operator: "EXISTS", value: null });
      return new Set([objectType]);
    }
    if (negatedExists) fail("expected EXISTS", this.peek().at);
    const { objectType, path } = this.objectPath();
    const negated = this.accept("kw", "NOT");
    const tok = this.next();
    let operator: string;
    let value: PatternLiteral | PatternLiteral[];
    if (tok.t === "op") {
      operator = tok.v;
      const kinds: PatternLiteral["kind"][] = ["int", "float", "string", "binary", "hex", "timestamp"];
      value = this.literalOf(operator === "=" || operator === "!=" ? [...kinds, "bool"] : kinds).v;
    } else if (tok.t === "kw" && tok.v === "IN") {
      operator = "IN";
      value = this.set();
    } else if (tok.t === "kw" && ["LIKE", "MATCHES", "ISSUBSET", "ISSUPERSET"].includes(tok.v)) {
      operator = tok.v;
      value = this.literalOf(["string"]).v;
    } else fail("expected a comparison operator", tok.at);
    this.comparisons.push({ objectType, path, negated, operator, value });
    return new Set([objectType]);
  }

  private set(): PatternLiteral[] {
    this.expect("punct", "(");
    const values: PatternLiteral[] = [];
    if (this.accept("punct", ")")) return values;
    do values.push(this.literalOf(["int", "float", "string", "binary", "hex", "timestamp", "bool"]).v);
    while (this.accept("punct", ","));
    this.expect("punct", ")");
    return values;
  }

  private objectPath(): { objectType: string; path: (string | number)[] } {
    const type = this.next();
    if (type.t !== "ident") fail("expected an object type", type.at);
    this.expect("punct", ":");
    const path: (string | number)[] = [this.propertyName()];
    for (;;) {
      if (this.accept("punct", ".")) path.push(this.propertyName());
      else if (this.accept("punct", "[")) {
        if (this.accept("punct", "*")) path.push("*");
        else {
          const index = this.literalOf(["int"]);
          path.push(index.v.value as number);
        }
        this.expect("punct", "]");
      } else break;
    }
    return { objectType: type.v, path };
  }

  /** Property names may not hold unquoted hyphens (object types may). */
  private propertyName(): string {
    const tok = this.next();
    if (tok.t === "ident" && !tok.hyphen) return tok.v;
    if (tok.t === "lit" && tok.v.kind === "string") return tok.v.value;
    fail("expected a property name", tok.at);
  }
}

/** Parses a STIX pattern; throws PatternSyntaxError naming the first problem. */
export function parseStixPattern(pattern: string): ParsedPattern {
  const parser = new Parser(tokenize(pattern));
  parser.pattern();
  return { observations: parser.observations, comparisons: parser.comparisons };
}

export function isValidStixPattern(pattern: string): boolean {
  try {
    parseStixPattern(pattern);
    return true;
  } catch (err) {
    if (err instanceof PatternSyntaxError) return false;
    throw err;
  }
}
