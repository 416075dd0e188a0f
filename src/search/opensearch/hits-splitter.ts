/**
 * A `_search` response body parsed hit by hit from its bytes, for scans (Explore export, saved
 * exports). `JSON.parse` of a string of 100 K characters or more allocates everything it builds
 * directly in V8's old generation (the parser's pretenuring), which V8 collects only after it has
 * grown by hundreds of MB: a page of 1,000 attributes is about 1 MB of JSON, so parsing pages whole
 * moved ~90 MB to the old generation per 100,000 exported attributes. Parsed one hit (about 1 KB)
 * at a time, a page stays in the young generation and dies there.
 *
 * The body is scanned once (strings and escapes skipped, UTF-8 continuation bytes never look like
 * JSON punctuation): the array at `hits.hits` of the top-level object is cut into its elements,
 * each parsed on its own, and the rest of the body (with an empty `hits.hits`) is parsed as the
 * envelope (`pit_id`, `timed_out`, `_shards`). A body without that array (an error) is parsed
 * whole: it is small.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const HITS = Buffer.from("hits");

export interface SplitSearchResponse {
  envelope: Record<string, unknown>;
  hits: unknown[];
}

export function parseSearchResponse(body: Buffer): SplitSearchResponse {
  const span = hitsArraySpan(body);
  if (!span) return { envelope: JSON.parse(body.toString("utf8")) as Record<string, unknown>, hits: [] };
  const envelope = JSON.parse(body.toString("utf8", 0, span.open + 1) + body.toString("utf8", span.close)) as Record<string, unknown>;
  const hits = span.elements.map(([start, end]) => JSON.parse(body.toString("utf8", start, end)) as unknown);
  return { envelope, hits };
}

interface ArraySpan {
  /** Offsets of the array's `[` and `]`. */
  open: number;
  close: number;
  /** [start, end) of each element (objects: OpenSearch hits are objects). */
  elements: [number, number][];
}

/** Where `hits.hits` is: the value of key `hits` in the value of key `hits` of the top-level object. */
function hitsArraySpan(b: Buffer): ArraySpan | null {
  let depth = 0;
  // The path to the current position through `hits` keys: 1 inside the top-level object, 2 inside
  // its `hits` object, 3 inside the `hits.hits` array.
  let onPath = 0;
  let lastKeyIsHits = false;
  let stringStart = -1;
  let open = -1;
  let elementStart = -1;
  const elements: [number, number][] = [];
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (stringStart >= 0) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        // A key of an object on the path: is it `hits`, followed by a colon?
        if (onPath === depth && (depth === 1 || depth === 2)) lastKeyIsHits = i - stringStart - 1 === 4 && b.compare(HITS, 0, 4, stringStart + 1, i) === 0 && nextIsColon(b, i + 1);
        stringStart = -1;
      }
      continue;
    }
    if (c === QUOTE) {
      stringStart = i;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 0 && c === OPEN_OBJECT) onPath = 1;
      else if (onPath === depth && lastKeyIsHits && depth === 1 && c === OPEN_OBJECT) onPath = 2;
      else if (onPath === depth && lastKeyIsHits && depth === 2 && c === OPEN_ARRAY) {
        onPath = 3;
        open = i;
      } else if (onPath === 3 && depth === 3) elementStart = i;
      lastKeyIsHits = false;
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (onPath === 3 && depth === 3 && elementStart >= 0) {
        elements.push([elementStart, i + 1]);
        elementStart = -1;
      } else if (onPath === 3 && depth === 2) {
        return { open, close: i, elements };
      }
      if (onPath > depth) onPath = depth;
    }
  }
  return null;
}

function nextIsColon(b: Buffer, from: number): boolean {
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === COLON;
  }
  return false;
}
