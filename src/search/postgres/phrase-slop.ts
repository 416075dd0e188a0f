/**
 * Sloppy phrases (`"remote administration"~3`) with Lucene's semantics, for the PostgreSQL backend.
 *
 * A phrase of tokens t0..tn-1 matches a text field when some occurrence of each token, at document
 * positions p0..pn-1 (all different), has max(pi - i) - min(pi - i) <= slop: every token moved from
 * where an exact phrase would have it, order changes included (`"b a"` is `"a b"` with 2 moves), as
 * Lucene's SloppyPhraseMatcher measures a match. Positions are the token positions of the field's
 * values (`d.phrases`, `./documents.ts`); a field's next value starts 100 positions after the end
 * of the previous one, as OpenSearch's `position_increment_gap`.
 *
 * The function walks the tokens' positions in query order, dropping any partial match already
 * wider than the slop, so its work is bounded by the occurrences near each other, not by all
 * combinations. Queries call it only on documents that hold every token (the GIN condition).
 */

/** Versioned name: a change of semantics is a new function, created beside the old one. */
export const SLOPPY_PHRASE_FUNCTION = "search_sloppy_phrase_v1";
export const SLOPPY_PHRASE_SIGNATURE = `${SLOPPY_PHRASE_FUNCTION}(jsonb, text[], integer)`;

export const SLOPPY_PHRASE_DDL = `
CREATE OR REPLACE FUNCTION ${SLOPPY_PHRASE_FUNCTION}(vals jsonb, terms text[], slop integer) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  WITH RECURSIVE
  v AS (SELECT x.ord, string_to_array(btrim(x.v, ' '), ' ') AS toks FROM jsonb_array_elements_text(vals) WITH ORDINALITY AS x(v, ord)),
  b AS (SELECT v.toks, coalesce(sum(cardinality(v.toks) + 100) OVER (ORDER BY v.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base FROM v),
  p AS (SELECT t.tok, (b.base + t.i - 1)::int AS pos FROM b, unnest(b.toks) WITH ORDINALITY AS t(tok, i) WHERE t.tok = ANY(terms)),
  walk(i, lo, hi, used) AS (
    SELECT 1, p.pos, p.pos, ARRAY[p.pos] FROM p WHERE p.tok = terms[1]
    UNION ALL
    SELECT w.i + 1, least(w.lo, p.pos - w.i), greatest(w.hi, p.pos - w.i), w.used || p.pos
      FROM walk w JOIN p ON p.tok = terms[w.i + 1]
     WHERE w.i < cardinality(terms) AND p.pos <> ALL (w.used)
       AND greatest(w.hi, p.pos - w.i) - least(w.lo, p.pos - w.i) <= slop)
  SELECT EXISTS (SELECT 1 FROM walk WHERE i = cardinality(terms))
$$;`;
