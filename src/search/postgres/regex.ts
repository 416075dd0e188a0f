/**
 * Lucene RegExp (the body of `/.../`, syntax already checked by `../lucene/regexp.ts`) translated
 * to a PostgreSQL ARE, anchored to the whole value/token as Lucene regexes are (`^(?:...)$`).
 *
 * PostgreSQL's regex engine is a hybrid DFA/NFA (Henry Spencer's), not a backtracking one, so
 * patterns such as `(a+)+$` do not explode; the statement timeout still bounds every search.
 *
 * Supported: `| . * + ? {n} {n,} {n,m} [..] [^..] ( ) "literal" # @` and `\d \D \w \W \s \S` (ASCII
 * sets, as Lucene). Every literal character is escaped, so nothing in the user pattern is ever
 * interpreted by PostgreSQL as its own syntax (`^`, `$`, `\y`, `(?`, ... are literals in Lucene).
 * Not expressible in a PostgreSQL regex and rejected with RegexUnsupported (the route answers 400):
 * intersection `&`, complement `~`, numeric intervals `<n-m>`, negated classes `\D \W \S` inside
 * `[...]`, repetition counts above 255 (PostgreSQL's limit).
 */

export class RegexUnsupported extends Error {}

/** Longest translated pattern accepted (the user pattern itself is capped at 256 by parseLucene). */
export const MAX_PG_REGEX_LENGTH = 8192;
const PG_DUPMAX = 255;

const PREDEFINED: Record<string, string> = {
  d: "0-9",
  w: "a-zA-Z0-9_",
  s: " \\t\\n\\r",
};

/** A literal character in an ARE (outside or inside brackets). */
export function lit(ch: string): string {
  if (/^[A-Za-z0-9]$/.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp > 0x7f) return ch;
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  if (ch === "\r") return "\\r";
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, "0")}`;
  return `\\${ch}`;
}

class Translator {
  private pos = 0;
  private readonly cps: string[];

  constructor(pattern: string) {
    this.cps = [...pattern];
  }

  run(): string {
    if (this.cps.length === 0) return "";
    const out = this.union();
    if (this.more()) throw new RegexUnsupported(`unexpected '${this.cps[this.pos]}'`);
    return out;
  }

  private more(): boolean {
    return this.pos < this.cps.length;
  }

  private peek(chars: string): boolean {
    return this.more() && chars.includes(this.cps[this.pos]!);
  }

  private match(ch: string): boolean {
    if (this.more() && this.cps[this.pos] === ch) {
      this.pos++;
      return true;
    }
    return false;
  }

  private next(): string {
    if (!this.more()) throw new RegexUnsupported("unexpected end of the regular expression");
    return this.cps[this.pos++]!;
  }

  private union(): string {
    const parts = [this.inter()];
    while (this.match("|")) parts.push(this.inter());
    return parts.length === 1 ? parts[0]! : `(?:${parts.join("|")})`;
  }

  private inter(): string {
    const first = this.concat();
    if (this.peek("&")) throw new RegexUnsupported("the intersection operator '&' is not supported");
    return first;
  }

  private concat(): string {
    let out = "";
    do out += this.repeat();
    while (this.more() && !this.peek(")|&"));
    return out;
  }

  private repeat(): string {
    let atom = this.compl();
    while (this.peek("?*+{")) {
      const op = this.next();
      if (op !== "{") {
        atom = `(?:${atom})${op}`;
        continue;
      }
      const min = this.integer();
      let max: number | null = min;
      if (this.match(",")) max = this.peek("0123456789") ? this.integer() : null;
      this.match("}");
      if (min > PG_DUPMAX || (max !== null && max > PG_DUPMAX)) {
        throw new RegexUnsupported(`repetition counts above ${PG_DUPMAX} are not supported`);
      }
      atom = `(?:${atom}){${min}${max === min ? "" : `,${max ?? ""}`}}`;
    }
    return atom;
  }

  private integer(): number {
    let s = "";
    while (this.peek("0123456789")) s += this.next();
    return Number(s);
  }

  private compl(): string {
    if (this.peek("~")) throw new RegexUnsupported("the complement operator '~' is not supported");
    return this.charClassExp();
  }

  private charClassExp(): string {
    if (!this.match("[")) return this.simple();
    const negated = this.match("^");
    let body = "";
    do body += this.classItem();
    while (this.more() && !this.peek("]"));
    this.match("]");
    return `[${negated ? "^" : ""}${body}]`;
  }

  private classItem(): string {
    const pre = this.predefined();
    if (pre !== null) {
      if (pre.negated) throw new RegexUnsupported("negated classes \\D \\W \\S inside [...] are not supported");
      return pre.set;
    }
    const from = this.charExp();
    if (this.match("-")) return `${lit(from)}-${lit(this.charExp())}`;
    return lit(from);
  }

  /** `\d` etc. -> set; `\\` -> literal backslash; otherwise consumes a lone `\` (as Lucene) and returns null. */
  private predefined(): { set: string; negated: boolean } | null {
    if (!this.match("\\")) return null;
    if (this.peek("dDwWsS")) {
      const c = this.next();
      return { set: PREDEFINED[c.toLowerCase()]!, negated: c !== c.toLowerCase() };
    }
    if (this.match("\\")) return { set: "\\\\", negated: false };
    return null;
  }

  private simple(): string {
    if (this.match(".")) return ".";
    if (this.match("#")) return "(?!)";
    if (this.match("@")) return "(?:.*)";
    if (this.match('"')) {
      let s = "";
      while (this.more() && !this.peek('"')) s += lit(this.next());
      this.match('"');
      return `(?:${s})`;
    }
    if (this.match("(")) {
      if (this.match(")")) return "(?:)";
      const inner = this.union();
      this.match(")");
      return `(?:${inner})`;
    }
    if (this.peek("<")) throw new RegexUnsupported("numeric intervals <n-m> are not supported");
    const pre = this.predefined();
    if (pre !== null) return pre.negated ? `[^${pre.set}]` : `[${pre.set}]`;
    return lit(this.charExp());
  }

  private charExp(): string {
    this.match("\\");
    return this.next();
  }
}

/** The anchored PostgreSQL ARE for a Lucene regex body; throws RegexUnsupported. */
export function luceneRegexToPostgres(pattern: string): { anchored: string; unanchored: string } {
  const body = new Translator(pattern).run();
  const unanchored = `(?:${body})`;
  if (unanchored.length > MAX_PG_REGEX_LENGTH) throw new RegexUnsupported("regular expression too long");
  return { anchored: `^${unanchored}$`, unanchored };
}
