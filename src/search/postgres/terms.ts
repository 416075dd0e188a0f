/**
 * The term dictionary (`search_terms`, `./postings.ts`): one row per distinct term of a keyword or
 * text field, which wildcards and regexes are matched against before any posting is read.
 *
 * A term with exactly one posting keeps a copy of it in its row (`pulse` 1: `ts`, `doc`, `live`,
 * `aud`, `fct`, as Lucene's pulsing codec inlines rare terms): most terms of an Explore field are one
 * value's (a hash, a domain), so a pattern matching 16 000 of them needs no index descent per term
 * into `search_postings`. `pulse` 0: the term has no posting (any more); NULL: it may have several,
 * read them from `search_postings`. The postings stay in `search_postings` in every case.
 *
 * A term's state only says what is certain: concurrent writers of one term leave it NULL, and NULL
 * is never left (a term that had several postings does not count them down).
 */
import type pg from "pg";
import type { TermPattern } from "./postings-plan.ts";
import { dictionaryEntry, MAX_TERM, type DictionaryEntry } from "./postings.ts";

/** Rows per statement. */
const CHUNK = 20_000;

/** A posting as the writers have it (`ts`: timestamptz text; `aud`, `fct`: `./codes.ts`), its key aside. */
export interface TermPosting {
  ts: string;
  doc: string;
  live: boolean;
  aud: number | null;
  fct: number | null;
}

/** One document's postings: its keys (any, only those of the dictionary's terms count) and its posting. */
export interface TermPostings {
  keys: string[];
  posting: TermPosting;
}

interface Change {
  entry: DictionaryEntry;
  /** Docs whose posting of the term was deleted. */
  removed: Set<string>;
  added: TermPosting[];
}

interface State {
  key: string;
  pulse: number | null;
  doc: string | null;
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Brings the dictionary in step with postings deleted (`gone`) and inserted (`added`) in this
 * transaction. Rows are locked in key order (and only those whose state may change), so
 * concurrent writers wait for each other instead of deadlocking.
 */
export async function applyTermChanges(client: pg.PoolClient, gone: TermPostings[], added: TermPostings[]): Promise<void> {
  const changes = new Map<string, Change>();
  const changeOf = (key: string) => {
    let change = changes.get(key);
    if (change === undefined) {
      const entry = dictionaryEntry(key);
      if (entry === null) return null;
      change = { entry, removed: new Set(), added: [] };
      changes.set(key, change);
    }
    return change;
  };
  // Documents as text on both sides: pg answers int8 as the process's parser says (numbers in the
  // service, src/platform/db), and a number never equals its text in a Set.
  for (const { keys, posting } of gone) for (const key of keys) changeOf(key)?.removed.add(String(posting.doc));
  for (const { keys, posting } of added) for (const key of keys) changeOf(key)?.added.push(posting);
  const keys = [...changes.keys()].sort(byKey);
  if (keys.length === 0) return;
  if (gone.length === 0) {
    await addTerms(client, keys.map((k) => changes.get(k)!));
    return;
  }

  // Unlocked: terms in state NULL stay so, absent terms are inserted below.
  const known = new Map((await readStates(client, keys, changes, false)).map((s) => [s.key, s]));
  const countable = keys.filter((k) => known.get(k)?.pulse != null);
  const locked = await readStates(client, countable, changes, true);

  const updates: { change: Change; pulse: number | null; posting: TermPosting | null }[] = [];
  for (const state of locked) {
    const change = changes.get(state.key)!;
    const kept = state.pulse === 1 && !change.removed.has(String(state.doc)) ? 1 : 0;
    // A removal from a term without postings: the state was wrong, stop trusting it.
    const contradicted = state.pulse === 0 && change.removed.size > 0;
    const remaining = kept + change.added.length;
    if (contradicted || remaining > 1) updates.push({ change, pulse: null, posting: null });
    else if (remaining === 0 && state.pulse !== 0) updates.push({ change, pulse: 0, posting: null });
    else if (remaining === 1 && kept === 0) updates.push({ change, pulse: 1, posting: change.added[0]! });
  }
  await writeStates(client, updates);

  const fresh = keys.filter((k) => !known.has(k) && changes.get(k)!.added.length > 0).map((k) => changes.get(k)!);
  await insertTerms(client, fresh, false);
}

/** The states of these terms, in key order; locked: only terms whose state is 0 or 1, locked. */
async function readStates(client: pg.PoolClient, keys: string[], changes: Map<string, Change>, locked: boolean): Promise<State[]> {
  const out: State[] = [];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK).map((k) => changes.get(k)!.entry);
    // LATERAL ... LIMIT 1: one primary-key lookup per term, in the given order (no hash join).
    const { rows } = await client.query<State>(
      `SELECT x.field || chr(1) || x.term AS key, s.pulse, s.doc::text AS doc
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(field, term, n)
       CROSS JOIN LATERAL (SELECT t.pulse, t.doc FROM search_terms t WHERE t.field = x.field AND t.term = x.term
                           ${locked ? "AND t.pulse IS NOT NULL FOR UPDATE OF t" : ""} LIMIT 1) s
       ORDER BY x.n`,
      [chunk.map((e) => e.field), chunk.map((e) => e.term)],
    );
    out.push(...rows);
  }
  return out;
}

async function writeStates(client: pg.PoolClient, updates: { change: Change; pulse: number | null; posting: TermPosting | null }[]): Promise<void> {
  for (let i = 0; i < updates.length; i += CHUNK) {
    const chunk = updates.slice(i, i + CHUNK);
    await client.query(
      `UPDATE search_terms t SET pulse = x.pulse, ts = x.ts, doc = x.doc, live = x.live, aud = x.aud, fct = x.fct
       FROM unnest($1::text[], $2::text[], $3::smallint[], $4::timestamptz[], $5::bigint[], $6::boolean[], $7::int[], $8::smallint[])
         AS x(field, term, pulse, ts, doc, live, aud, fct)
       WHERE t.field = x.field AND t.term = x.term`,
      [
        chunk.map((u) => u.change.entry.field),
        chunk.map((u) => u.change.entry.term),
        chunk.map((u) => u.pulse),
        chunk.map((u) => u.posting?.ts ?? null),
        chunk.map((u) => u.posting?.doc ?? null),
        chunk.map((u) => u.posting?.live ?? null),
        chunk.map((u) => u.posting?.aud ?? null),
        chunk.map((u) => u.posting?.fct ?? null),
      ],
    );
  }
}

/**
 * Postings added, none deleted (a batch of new documents): each term's state follows in one
 * statement, without reading it first (`insertTerms`).
 */
const addTerms = (client: pg.PoolClient, changes: Change[]) => insertTerms(client, changes, true);

/**
 * New terms, in key order. One that another writer added since it was read holds postings of both:
 * its state becomes NULL. `existing`: the terms may exist (their states not read): with nothing
 * removed, a term without postings (0) takes the one added or becomes NULL, one with a posting (1)
 * becomes NULL, NULL stays (the rule `applyTermChanges` applies to the states it reads, on the row
 * as the conflict locks it).
 */
async function insertTerms(client: pg.PoolClient, fresh: Change[], existing: boolean): Promise<void> {
  const fromEmpty = (column: string) => `${column} = CASE WHEN search_terms.pulse = 0 THEN EXCLUDED.${column} END`;
  const onConflict = existing
    ? ["pulse", "ts", "doc", "live", "aud", "fct"].map(fromEmpty).join(", ")
    : "pulse = NULL, ts = NULL, doc = NULL, live = NULL, aud = NULL, fct = NULL";
  for (let i = 0; i < fresh.length; i += CHUNK) {
    const chunk = fresh.slice(i, i + CHUNK);
    const single = (c: Change) => (c.added.length === 1 ? c.added[0]! : null);
    await client.query(
      `INSERT INTO search_terms (field, term, length, pulse, ts, doc, live, aud, fct)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::smallint[], $5::timestamptz[], $6::bigint[], $7::boolean[], $8::int[], $9::smallint[])
       ON CONFLICT (field, term) DO UPDATE SET ${onConflict}
         WHERE search_terms.pulse IS NOT NULL`,
      [
        chunk.map((c) => c.entry.field),
        chunk.map((c) => c.entry.term),
        chunk.map((c) => c.entry.length),
        chunk.map((c) => (single(c) ? 1 : null)),
        chunk.map((c) => single(c)?.ts ?? null),
        chunk.map((c) => single(c)?.doc ?? null),
        chunk.map((c) => single(c)?.live ?? null),
        chunk.map((c) => single(c)?.aud ?? null),
        chunk.map((c) => single(c)?.fct ?? null),
      ],
    );
  }
}

export interface MatchedTerms {
  /** How many terms match. */
  terms: number;
  /** Every matching term's key, when they are at most `keyLimit` (null: more). */
  keys: string[] | null;
  /** The keys of the terms whose postings are in `search_postings` only (state NULL). */
  unknown: string[];
  /** How many terms have exactly one posting, inlined (state 1). */
  inlined: number;
}

/**
 * `SELECT <select> FROM ...` of the dictionary rows `t` a pattern matches (`p` binds a parameter).
 * An ending (`*.xyz`) is a range of the reversed-term index; lengths are a range of the length
 * index; both hold every column (index-only: a pattern's terms are scattered over the table, and
 * the search reads them twice, `./postings-search.ts`). Without a trigram to look up, the trigram
 * index would return every term (and the planner cannot tell). So: the candidates first, behind
 * OFFSET 0, then the tests, unless the trigram index selects.
 */
export function patternTermsSql(p: (value: unknown) => string, pattern: TermPattern, select = "t.field, t.term, t.pulse, t.ts, t.doc, t.live, t.aud, t.fct"): string {
  const conds = [`t.field = ${p(pattern.field)}`];
  // Lengths only when bounded: a lower bound alone rarely selects, and would tempt the planner.
  if (Number.isFinite(pattern.maxLength)) conds.push(`t.length BETWEEN ${p(pattern.minLength)} AND ${p(pattern.maxLength)}`);
  if (pattern.suffix !== undefined) {
    const reversed = [...pattern.suffix].reverse().join("");
    conds.push(`reverse(t.term) >= ${p(reversed)}`, `reverse(t.term) < ${p(`${reversed}\u{10FFFF}`)}`);
  }
  const tests: string[] = [];
  if (pattern.like !== undefined) tests.push(`t.term LIKE ${p(pattern.like)}`);
  if (pattern.regex !== undefined) tests.push(`t.term ~ ${p(pattern.regex)}`);
  const columns = "t.field, t.term, t.pulse, t.ts, t.doc, t.live, t.aud, t.fct";
  if (pattern.trigrams && pattern.suffix === undefined) return `SELECT ${select} FROM search_terms t WHERE ${[...conds, ...tests].join(" AND ")}`;
  return `SELECT ${select} FROM (SELECT ${columns} FROM search_terms t WHERE ${conds.join(" AND ")} OFFSET 0) t WHERE ${tests.join(" AND ")}`;
}

/**
 * How many dictionary terms a pattern matches (at most `limit` + 1), and which. null: the field
 * holds capped terms (their ends are not kept) and the pattern may match strings that long.
 */
export async function matchTerms(client: pg.PoolClient, pattern: TermPattern, limit: number, keyLimit: number): Promise<MatchedTerms | null> {
  const values: unknown[] = [];
  const p = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const capped = pattern.maxLength > MAX_TERM ? `EXISTS (SELECT 1 FROM search_terms c WHERE c.field = ${p(pattern.field)} AND c.length > ${MAX_TERM})` : "false";
  // array_agg of no rows is NULL: `keys` is then '{}' (none), not NULL (too many to list), which
  // dropped the other keys of an OR from its probes (`a* OR /no term/` found nothing).
  const sql = `SELECT ${capped} AS capped, count(*)::int AS terms,
      CASE WHEN count(*) <= ${p(keyLimit)} THEN coalesce(array_agg(m.field || chr(1) || m.term), '{}') END AS keys,
      array_agg(m.field || chr(1) || m.term) FILTER (WHERE m.pulse IS NULL) AS unknown,
      count(*) FILTER (WHERE m.pulse = 1)::int AS inlined
    FROM (${patternTermsSql(p, pattern)} LIMIT ${p(limit + 1)}) m`;
  const { rows } = await client.query<{ capped: boolean; terms: number; keys: string[] | null; unknown: string[] | null; inlined: number }>(sql, values);
  const r = rows[0]!;
  if (r.capped) return null;
  return { terms: r.terms, keys: r.keys, unknown: r.unknown ?? [], inlined: r.inlined };
}

/**
 * The keys of the terms of a dictionary field that start with `prefix`, in term order; null when
 * there are more than `limit`. Terms that lost their postings are listed too (they find nothing).
 */
export async function prefixTerms(client: pg.PoolClient, field: string, prefix: string, limit: number): Promise<string[] | null> {
  const { rows } = await client.query<{ key: string }>(
    `SELECT t.field || chr(1) || t.term AS key FROM search_terms t
     WHERE t.field = $1 AND t.term >= $2 AND t.term < $3 ORDER BY t.term LIMIT $4`,
    [field, prefix, `${prefix}\u{10FFFF}`, limit + 1],
  );
  return rows.length > limit ? null : rows.map((r) => r.key);
}
