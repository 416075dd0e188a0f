/**
 * Syntax check for Lucene RegExp patterns (the body of `/.../` in a query),
 * with the syntax flags OpenSearch's query_string uses (all optional
 * operators enabled).  It only decides whether OpenSearch would reject the
 * pattern when building the query; it builds no automaton.
 *
 * Grammar (Lucene RegExp, all operators bind as listed, loosest first):
 *   union   := inter ('|' inter)*
 *   inter   := concat ('&' concat)*
 *   concat  := repeat+                    (stops before ')' '|' '&')
 *   repeat  := compl ('?' | '*' | '+' | '{n}' | '{n,}' | '{n,m}')*
 *   compl   := '~'* charclassexp
 *   charclassexp := '[' '^'? classitem+ ']' | simple
 *   classitem    := predefined | char ('-' char)?
 *   simple  := '.' | '#' | '@' | '"' any-but-quote* '"' | '(' ')' | '(' union ')'
 *            | '<' n '-' m '>' | predefined | char
 *   char    := '\'? any character        (a reserved character that cannot
 *                                          start anything else is literal)
 *   predefined := '\d' '\D' '\s' '\S' '\w' '\W' | '\\'
 * Rejected like Lucene: `\` before another ASCII letter, reversed character
 * ranges, `{n,m}` with n > m or numbers above 2^31-1, named automata `<name>`
 * (OpenSearch registers none), unterminated groups/classes/strings/intervals,
 * and anything left over after a complete expression.
 */

export interface RegexSyntaxProblem {
  /** Offset inside the pattern. */
  position: number;
  message: string;
}

const MAX_NESTING = 256;
const MAX_INT = 2 ** 31 - 1;
const INVALID_CLASS_LETTERS = 'abcefghijklmnopqrtuvxyzABCEFGHIJKLMNOPQRTUVXYZ';

class RegexProblem extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

class RegexChecker {
  private pos = 0;
  private depth = 0;

  constructor(private readonly s: string) {}

  run(): void {
    if (this.s.length === 0) return;
    this.union();
    if (this.more()) this.fail(`unexpected '${this.s[this.pos]}'`);
  }

  private fail(message: string, position = this.pos): never {
    throw new RegexProblem(position, message);
  }

  private more(): boolean {
    return this.pos < this.s.length;
  }

  private peek(chars: string): boolean {
    return this.more() && chars.includes(String.fromCodePoint(this.s.codePointAt(this.pos)!));
  }

  private match(ch: string): boolean {
    if (this.more() && this.s.codePointAt(this.pos) === ch.codePointAt(0)) {
      this.pos += ch.length;
      return true;
    }
    return false;
  }

  private next(): number {
    if (!this.more()) this.fail('unexpected end of the regular expression');
    const cp = this.s.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private union(): void {
    do this.inter();
    while (this.match('|'));
  }

  private inter(): void {
    do this.concat();
    while (this.match('&'));
  }

  private concat(): void {
    do this.repeat();
    while (this.more() && !this.peek(')|&'));
  }

  private repeat(): void {
    this.compl();
    while (this.peek('?*+{')) {
      if (this.match('?') || this.match('*') || this.match('+')) continue;
      this.match('{');
      const min = this.integer();
      let max = min;
      if (this.match(',')) max = this.peek('0123456789') ? this.integer() : -1;
      if (!this.match('}')) this.fail("expected '}'");
      if (max !== -1 && min > max) this.fail(`invalid repetition range {${min},${max}}`);
    }
  }

  private integer(): number {
    const start = this.pos;
    while (this.peek('0123456789')) this.pos++;
    if (start === this.pos) this.fail('integer expected');
    const n = Number(this.s.slice(start, this.pos));
    if (n > MAX_INT) this.fail('number too large', start);
    return n;
  }

  private compl(): void {
    while (this.match('~'));
    this.charClassExp();
  }

  private charClassExp(): void {
    if (!this.match('[')) {
      this.simple();
      return;
    }
    const open = this.pos - 1;
    this.match('^');
    do this.classItem();
    while (this.more() && !this.peek(']'));
    if (!this.match(']')) this.fail("unterminated character class: expected ']'", open);
  }

  private classItem(): void {
    if (this.predefined()) return;
    const start = this.pos;
    const from = this.charExp();
    if (this.match('-')) {
      const to = this.charExp();
      if (from > to) this.fail(`invalid character range ${this.s.slice(start, this.pos)}`, start);
    }
  }

  /** `\d \D \s \S \w \W \\`; rejects `\` + other ASCII letters; otherwise consumes a lone `\` (like Lucene). */
  private predefined(): boolean {
    if (!this.match('\\')) return false;
    if (this.peek('dDwWsS\\')) {
      this.next();
      return true;
    }
    if (this.peek(INVALID_CLASS_LETTERS)) this.fail(`invalid escape '\\${this.s[this.pos]}'`, this.pos - 1);
    return false;
  }

  private simple(): void {
    if (this.match('.') || this.match('#') || this.match('@')) return;
    const start = this.pos;
    if (this.match('"')) {
      while (this.more() && !this.peek('"')) this.next();
      if (!this.match('"')) this.fail("unterminated string: expected '\"'", start);
      return;
    }
    if (this.match('(')) {
      if (this.match(')')) return;
      if (++this.depth > MAX_NESTING) this.fail('regular expression nested too deeply', start);
      this.union();
      if (!this.match(')')) this.fail("unterminated group: expected ')'", start);
      this.depth--;
      return;
    }
    if (this.match('<')) {
      while (this.more() && !this.peek('>')) this.next();
      if (!this.match('>')) this.fail("unterminated interval: expected '>'", start);
      const body = this.s.slice(start + 1, this.pos - 1);
      const dash = body.indexOf('-');
      if (dash === -1) this.fail(`named automaton <${body}> is not supported`, start);
      const ok =
        dash > 0 &&
        dash < body.length - 1 &&
        dash === body.lastIndexOf('-') &&
        /^\+?[0-9]+$/.test(body.slice(0, dash)) &&
        /^\+?[0-9]+$/.test(body.slice(dash + 1)) &&
        Number(body.slice(0, dash)) <= MAX_INT &&
        Number(body.slice(dash + 1)) <= MAX_INT;
      if (!ok) this.fail(`invalid numeric interval <${body}>`, start);
      return;
    }
    if (this.predefined()) return;
    this.charExp();
  }

  private charExp(): number {
    this.match('\\');
    return this.next();
  }
}

/** Returns null when OpenSearch would accept the pattern, else the first problem. */
export function checkLuceneRegex(pattern: string): RegexSyntaxProblem | null {
  try {
    new RegexChecker(pattern).run();
    return null;
  } catch (err) {
    if (err instanceof RegexProblem) return { position: err.position, message: err.message };
    throw err;
  }
}
