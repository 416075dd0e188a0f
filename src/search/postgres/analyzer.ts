/**
 * An emulation of OpenSearch's `standard` analyzer (Lucene StandardTokenizer + LowerCaseFilter,
 * no stop words), used at index time AND at query time by the PostgreSQL backend so that text
 * fields behave as in OpenSearch.
 *
 * - Word segmentation: Unicode UAX #29 word boundaries, as Lucene's StandardTokenizer, via ICU's
 *   `Intl.Segmenter` (word-like segments only): `evil.com` and `1.2.3.4` stay one token,
 *   `1.2.3.4|80` -> `1.2.3.4`, `80`; `some-domain` -> `some`, `domain`; `a_b` stays one token.
 * - Differences from ICU that Lucene has and we reproduce: Hangul joins digits and letters like
 *   any other letter (`제30차` is one token, ICU splits it); every Han ideograph and every Hiragana
 *   character is its own token (ICU groups them with a dictionary); emoji are tokens; tokens longer
 *   than 255 characters are cut into 255-character pieces (max_token_length).
 * - Lower-casing is per code point (Java `Character.toLowerCase`, no special casing: final sigma
 *   stays `σ`, `İ` -> `i`).
 * Known residual differences: scripts where ICU uses dictionaries (Thai, Lao, Khmer, Myanmar) are
 * segmented into words here, Lucene keeps whole runs.
 */

const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const SINGLE_CHAR_SCRIPTS = /[\p{Script=Han}\p{Script=Hiragana}]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const MAX_TOKEN_LENGTH = 255;
const ASCII = /^[\x00-\x7f]*$/;
/** Hangul syllables and jamo (all in the BMP, so masking keeps UTF-16 offsets). */
const HANGUL = /[\u1100-\u11FF\u3130-\u318F\uA960-\uA97F\uAC00-\uD7FF\uFFA0-\uFFDC]/g;

/** Java-like per-code-point lower-casing. */
export function lowerCase(s: string): string {
  // ASCII (most indicators): String#toLowerCase is per character already.
  if (ASCII.test(s)) return s.toLowerCase();
  let out = "";
  for (const ch of s) {
    const l = ch.toLowerCase();
    out += [...l].length === 1 ? l : ch === "\u0130" ? "i" : ([...l][0] ?? ch);
  }
  return out;
}

function pushToken(out: string[], token: string): void {
  // UTF-16 units are never fewer than code points.
  if (token.length <= MAX_TOKEN_LENGTH) {
    out.push(token);
    return;
  }
  const cps = [...token];
  if (cps.length <= MAX_TOKEN_LENGTH) {
    out.push(token);
    return;
  }
  for (let i = 0; i < cps.length; i += MAX_TOKEN_LENGTH) out.push(cps.slice(i, i + MAX_TOKEN_LENGTH).join(""));
}

/** The tokens of `text`, in order (positions are the array indices). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  // Hangul is ALetter in UAX #29 (Lucene: `제30차한미안보` is one token) but ICU breaks it away from
  // digits and other letters: segment with each Hangul code unit (all BMP) masked as a Latin letter.
  const masked = text.replace(HANGUL, "a");
  for (const seg of segmenter.segment(masked)) {
    const s = text.slice(seg.index, seg.index + seg.segment.length);
    if (!seg.isWordLike) {
      for (const ch of s) if (EMOJI.test(ch)) out.push(ch);
      continue;
    }
    if (SINGLE_CHAR_SCRIPTS.test(s)) {
      // Split runs of ideographs / hiragana into single characters, keep other runs together.
      let run = "";
      for (const ch of s) {
        if (SINGLE_CHAR_SCRIPTS.test(ch)) {
          if (run) pushToken(out, lowerCase(run));
          run = "";
          out.push(ch);
        } else {
          run += ch;
        }
      }
      if (run) pushToken(out, lowerCase(run));
      continue;
    }
    pushToken(out, lowerCase(s));
  }
  return out;
}
