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

/** A translated piece: its ARE and the lengths (code points) of the strings it matches. */
interface Piece {
  re: string;
  /** Infinity / -Infinity: the piece matches nothing (`#`). */
  min: number;
  /** Infinity: unbounded. */
  max: number;
  /** A single-character atom (a character, a class, `.`). */
  char?: boolean;
  /** For `atom{n,m}` of such an atom: the atom's ARE. */
  counted?: string;
  /** See TranslatedRegex.loose. */
  loose?: string;
}

const EMPTY_LANGUAGE = { min: Infinity, max: -Infinity };
const one = (re: string): Piece => ({ re, min: 1, max: 1, char: true });

class Translator {
  private pos = 0;
  private readonly cps: string[];

  constructor(pattern: string) {
    this.cps = [...pattern];
  }

  run(): Piece {
    if (this.cps.length === 0) return { re: "", min: 0, max: 0 };
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

  private union(): Piece {
    const parts = [this.inter()];
    while (this.match("|")) parts.push(this.inter());
    if (parts.length === 1) return parts[0]!;
    return {
      re: `(?:${parts.map((p) => p.re).join("|")})`,
      min: Math.min(...parts.map((p) => p.min)),
      max: Math.max(...parts.map((p) => p.max)),
    };
  }

  private inter(): Piece {
    const first = this.concat();
    if (this.peek("&")) throw new RegexUnsupported("the intersection operator '&' is not supported");
    return first;
  }

  private concat(): Piece {
    const out: Piece = { re: "", min: 0, max: 0 };
    const parts: Piece[] = [];
    do {
      const p = this.repeat();
      parts.push(p);
      out.re += p.re;
      out.min += p.min;
      out.max += p.max;
    } while (this.more() && !this.peek(")|&"));
    if (out.max < out.min) return { re: out.re, ...EMPTY_LANGUAGE };
    // One counted single-character piece among pieces of fixed length: the total length fixes its
    // count, so `*` may stand for `{n,m}`.
    const counted = parts.filter((p) => p.counted !== undefined);
    if (counted.length === 1 && parts.every((p) => p.counted !== undefined || p.min === p.max)) {
      out.loose = parts.map((p) => (p.counted !== undefined ? `(?:${p.counted})*` : p.re)).join("");
    }
    return out;
  }

  private repeat(): Piece {
    let atom = this.compl();
    while (this.peek("?*+{")) {
      const op = this.next();
      let min: number;
      let max: number | null;
      if (op === "{") {
        min = this.integer();
        max = min;
        if (this.match(",")) max = this.peek("0123456789") ? this.integer() : null;
        this.match("}");
        if (min > PG_DUPMAX || (max !== null && max > PG_DUPMAX)) {
          throw new RegexUnsupported(`repetition counts above ${PG_DUPMAX} are not supported`);
        }
      } else {
        min = op === "+" ? 1 : 0;
        max = op === "?" ? 1 : null;
      }
      const re = op === "{" ? `(?:${atom.re}){${min}${max === min ? "" : `,${max ?? ""}`}}` : `(?:${atom.re})${op}`;
      const counted = op === "{" && max !== null && atom.char === true ? atom.re : undefined;
      atom = { re, ...repeatedLengths(atom, min, max), ...(counted !== undefined ? { counted } : {}) };
    }
    return atom;
  }

  private integer(): number {
    let s = "";
    while (this.peek("0123456789")) s += this.next();
    return Number(s);
  }

  private compl(): Piece {
    if (this.peek("~")) throw new RegexUnsupported("the complement operator '~' is not supported");
    return this.charClassExp();
  }

  private charClassExp(): Piece {
    if (!this.match("[")) return this.simple();
    const negated = this.match("^");
    let body = "";
    do body += this.classItem();
    while (this.more() && !this.peek("]"));
    this.match("]");
    return one(`[${negated ? "^" : ""}${body}]`);
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

  private simple(): Piece {
    if (this.match(".")) return one(".");
    if (this.match("#")) return { re: "(?!)", ...EMPTY_LANGUAGE };
    if (this.match("@")) return { re: "(?:.*)", min: 0, max: Infinity };
    if (this.match('"')) {
      let s = "";
      let n = 0;
      while (this.more() && !this.peek('"')) {
        s += lit(this.next());
        n++;
      }
      this.match('"');
      return { re: `(?:${s})`, min: n, max: n };
    }
    if (this.match("(")) {
      if (this.match(")")) return { re: "(?:)", min: 0, max: 0 };
      const inner = this.union();
      this.match(")");
      return { ...inner, re: `(?:${inner.re})` };
    }
    if (this.peek("<")) throw new RegexUnsupported("numeric intervals <n-m> are not supported");
    const pre = this.predefined();
    if (pre !== null) return one(pre.negated ? `[^${pre.set}]` : `[${pre.set}]`);
    return one(lit(this.charExp()));
  }

  private charExp(): string {
    this.match("\\");
    return this.next();
  }
}

/** Lengths of `atom{min,max}` (max null: unbounded). */
function repeatedLengths(atom: Piece, min: number, max: number | null): { min: number; max: number } {
  if (atom.max < atom.min) return min === 0 ? { min: 0, max: 0 } : EMPTY_LANGUAGE;
  const hi = max === 0 || atom.max === 0 ? 0 : max === null ? Infinity : atom.max * max;
  return { min: atom.min * min, max: hi };
}

export interface TranslatedRegex {
  anchored: string;
  unanchored: string;
  /** The lengths (code points) of the strings it matches; minLength > maxLength: none. */
  minLength: number;
  maxLength: number;
  /**
   * An anchored ARE that matches the same strings among those of minLength to maxLength code
   * points, with `*` for the one counted repetition (`[0-9a-f]{32}`), which PostgreSQL runs ten
   * times slower; null when the regex has no such form.
   */
  loose: string | null;
}

/**
 * Translations of recent patterns: one search translates each regex up to six times (the compiler
 * with and without a driver, and the compiler and the planner each in `planPostings` and
 * `candidateSources`), ~0.1 ms each for MISP value1's case-free regex of a domain.
 */
const translated = new Map<string, TranslatedRegex | RegexUnsupported>();
const TRANSLATED_KEPT = 256;

/** The anchored PostgreSQL ARE for a Lucene regex body; throws RegexUnsupported. */
export function luceneRegexToPostgres(pattern: string): TranslatedRegex {
  let known = translated.get(pattern);
  if (known === undefined) {
    try {
      known = Object.freeze(translate(pattern));
    } catch (err) {
      if (!(err instanceof RegexUnsupported)) throw err;
      known = err;
    }
    if (translated.size >= TRANSLATED_KEPT) translated.clear();
    translated.set(pattern, known);
  }
  if (known instanceof RegexUnsupported) throw new RegexUnsupported(known.message);
  return known;
}

function translate(pattern: string): TranslatedRegex {
  const body = new Translator(pattern).run();
  const unanchored = `(?:${body.re})`;
  if (unanchored.length > MAX_PG_REGEX_LENGTH) throw new RegexUnsupported("regular expression too long");
  const loose = body.loose !== undefined && Number.isFinite(body.max) ? `^(?:${body.loose})$` : null;
  return { anchored: `^${unanchored}$`, unanchored, minLength: body.min, maxLength: body.max, loose };
}
