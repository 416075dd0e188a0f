/**
 * Regex entries of warninglists are written for PHP (`/pattern/flags`) by whoever publishes the list,
 * and run against every attribute value of the applicable types: a pattern that backtracks
 * catastrophically would hang ingestion. JavaScript's engine cannot be interrupted, so patterns are
 * judged before use: nested or alternated repetition (`(a+)+`, `(a|aa)*`), back-references and more
 * than MAX_UNBOUNDED unbounded quantifiers are refused, and values longer than REGEX_MAX_INPUT are not
 * tested, which bounds what the accepted patterns can cost (polynomial of degree MAX_UNBOUNDED at most).
 */
export const REGEX_MAX_INPUT = 1024;
const MAX_UNBOUNDED = 2;
const MAX_PATTERN = 2000;

const CLOSING: Record<string, string> = { "(": ")", "{": "}", "[": "]", "<": ">" };
const FLAGS: Record<string, string> = { i: "i", m: "m", s: "s", u: "u", g: "", D: "", U: "" };

export type RegexVerdict = { ok: true; regex: RegExp } | { ok: false; reason: string };

/** A PHP-delimited (`/a.b/i`) or bare pattern as a RegExp, when it is safe to run. */
export function compileWarninglistRegex(entry: string): RegexVerdict {
  if (entry.length > MAX_PATTERN) return { ok: false, reason: `longer than ${MAX_PATTERN} characters` };
  const split = splitDelimited(entry);
  if (!split.ok) return split;
  let flags = "";
  for (const f of split.flags) {
    const js = FLAGS[f];
    if (js === undefined) return { ok: false, reason: `unsupported flag ${f}` };
    if (!flags.includes(js)) flags += js;
  }
  const problem = backtrackingRisk(split.pattern);
  if (problem) return { ok: false, reason: problem };
  try {
    return { ok: true, regex: new RegExp(split.pattern, flags) };
  } catch {
    return { ok: false, reason: "not a valid regular expression" };
  }
}

function splitDelimited(entry: string): { ok: true; pattern: string; flags: string } | { ok: false; reason: string } {
  const open = entry[0];
  if (open === undefined) return { ok: false, reason: "empty pattern" };
  if (/[A-Za-z0-9\\\s]/.test(open)) return { ok: true, pattern: entry, flags: "" };
  const close = CLOSING[open] ?? open;
  const end = entry.lastIndexOf(close);
  if (end <= 0) return { ok: false, reason: "no closing delimiter" };
  const flags = entry.slice(end + 1);
  if (!/^[A-Za-z]*$/.test(flags)) return { ok: false, reason: "text after the closing delimiter" };
  return { ok: true, pattern: entry.slice(1, end), flags };
}

interface Group {
  /** An unbounded or multiple repetition inside it. */
  repeats: boolean;
  alternates: boolean;
}

/** Why the pattern could backtrack catastrophically, or null. */
export function backtrackingRisk(pattern: string): string | null {
  const stack: Group[] = [{ repeats: false, alternates: false }];
  let unbounded = 0;
  let lastGroup: Group | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let atomGroup: Group | null = null;
    if (c === "\\") {
      const n = pattern[i + 1] ?? "";
      if (/[1-9]/.test(n) || n === "k") return "back-references are not supported";
      i++;
    } else if (c === "[") {
      i = classEnd(pattern, i);
    } else if (c === "(") {
      stack.push({ repeats: false, alternates: false });
      continue;
    } else if (c === ")") {
      if (stack.length === 1) return "unbalanced parenthesis";
      atomGroup = stack.pop()!;
      const parent = stack[stack.length - 1];
      parent.repeats ||= atomGroup.repeats;
    } else if (c === "|") {
      stack[stack.length - 1].alternates = true;
      continue;
    }
    lastGroup = atomGroup;
    const q = quantifierAt(pattern, i + 1);
    if (!q) continue;
    i += q.length;
    if (pattern[i + 1] === "?" || pattern[i + 1] === "+") i++;
    if (!q.repeats) continue;
    if (q.unbounded && ++unbounded > MAX_UNBOUNDED) return `more than ${MAX_UNBOUNDED} unbounded quantifiers`;
    if (lastGroup && (lastGroup.repeats || lastGroup.alternates)) return "a repeated group that itself repeats or alternates (nested quantifiers)";
    stack[stack.length - 1].repeats = true;
  }
  return stack.length === 1 ? null : "unbalanced parenthesis";
}

function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length;
}

/** The quantifier starting at `i`: its length, whether it allows more than one repetition, and without bound. */
function quantifierAt(pattern: string, i: number): { length: number; repeats: boolean; unbounded: boolean } | null {
  const c = pattern[i];
  if (c === "*" || c === "+") return { length: 1, repeats: true, unbounded: true };
  if (c === "?") return { length: 1, repeats: false, unbounded: false };
  if (c !== "{") return null;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
  if (!m) return null;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
  return { length: m[0].length, repeats: max > 1, unbounded: max === Infinity || max > 16 };
}
