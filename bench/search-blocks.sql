-- Block postings, measured on a database that `bench/search.ts --keep` left (table version 11),
-- before they are built into the PostgreSQL search backend (issue 27, bench/README.md "Block postings").
--
--   psql -v bs=64 -f bench/search-blocks.sql postgresql://postgres@127.0.0.1:5432/bench_search_<pid>
--
-- Builds scratch tables from `search_postings` (all named proto_*, dropped at the end):
-- - proto_blocks: the postings of every key with two or more, in blocks of :bs newest first (ts DESC,
--   doc), plain arrays; a block is keyed by its oldest entry (last_ts, -doc), so the block that covers
--   a (ts, doc) is the one with the greatest bound at or below it (ties on ts never split a lookup).
-- Then prints the sizes (blocks; postings as rows for the keys below each threshold, with and
-- without the single-posting keys the dictionary inlines) and times each read shape the search
-- statements need against the same read of today's rows, three times each, interleaved:
-- the newest 10,001 live postings of the match-all key, their count, and a probe by (key, ts, doc)
-- per row of a 17,000-posting driver (also with the doc arrays in the blocks index, and as a hash). Last, a batch's writes (the postings of the 500 newest documents):
-- inserted as rows, and merged into the blocks that cover them.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
\set allk '''a'' || chr(1)'
DROP TABLE IF EXISTS proto_blocks, proto_rows, proto_batch, proto_newest, proto_heads, proto_grouped;
CREATE TABLE proto_newest AS SELECT doc FROM search_documents WHERE ts IS NOT NULL ORDER BY ts DESC LIMIT 500;
CREATE TABLE proto_blocks (key text COLLATE "C" NOT NULL, last_ts timestamptz NOT NULL, last_ndoc int8 NOT NULL, n int NOT NULL,
  ts timestamptz[] NOT NULL, doc int8[] NOT NULL, aud int4[], fct int2[], live bool[] NOT NULL);
INSERT INTO proto_blocks
SELECT key, min(ts), -(array_agg(doc ORDER BY r DESC))[1], count(*),
  array_agg(ts ORDER BY r), array_agg(doc ORDER BY r), array_agg(aud ORDER BY r), array_agg(fct ORDER BY r), array_agg(live ORDER BY r)
FROM (SELECT key, ts, doc, aud, fct, live, (row_number() OVER w - 1) AS r, (row_number() OVER w - 1) / :bs AS blk, count(*) OVER (PARTITION BY key) AS c
      FROM search_postings WINDOW w AS (PARTITION BY key ORDER BY ts DESC, doc)) p
WHERE c >= 2 GROUP BY key, blk;
CREATE UNIQUE INDEX proto_blocks_idx ON proto_blocks (key, last_ts DESC, last_ndoc DESC);
VACUUM ANALYZE proto_blocks;

\echo '== sizes (MiB): rows today; blocks of keys with >= 2 postings'
SELECT round(pg_relation_size('search_postings') / 1048576.0, 1) AS rows_heap, round(pg_indexes_size('search_postings') / 1048576.0, 1) AS rows_index,
  (SELECT count(*) FROM search_postings) AS postings,
  round(pg_relation_size('proto_blocks') / 1048576.0, 1) AS blocks_heap, round((pg_table_size('proto_blocks') - pg_relation_size('proto_blocks')) / 1048576.0, 1) AS blocks_toast,
  round(pg_indexes_size('proto_blocks') / 1048576.0, 1) AS blocks_index, (SELECT count(*) FROM proto_blocks) AS blocks;

\echo '== keys below the threshold as rows (at today''s bytes per posting), the others as blocks; without_dictionary_singles: the single-posting keys the dictionary inlines need no row'
WITH k AS (SELECT key, count(*) AS c FROM search_postings GROUP BY key),
 tk AS (SELECT t.field || chr(1) || t.term AS key FROM search_terms t),
 b AS (SELECT p.key, sum(pg_column_size(p.*) + 28) AS bytes, count(*) AS blocks FROM proto_blocks p GROUP BY p.key),
 per AS (SELECT (pg_relation_size('search_postings') + pg_indexes_size('search_postings'))::numeric / (SELECT count(*) FROM search_postings) AS bytes),
 d AS (SELECT k.c, COALESCE(b.bytes, 0) AS bytes, COALESCE(b.blocks, 0) AS blocks, tk.key IS NOT NULL AS dict
       FROM k LEFT JOIN b ON b.key = k.key LEFT JOIN tk ON tk.key = k.key)
SELECT t AS threshold, sum(c) FILTER (WHERE c < t) AS row_postings,
  round(sum(c) FILTER (WHERE c < t) * (SELECT bytes FROM per) / 1048576, 1) AS rows_mib,
  round(sum(c) FILTER (WHERE c < t AND NOT (c = 1 AND dict)) * (SELECT bytes FROM per) / 1048576, 1) AS rows_mib_without_dictionary_singles,
  sum(blocks) FILTER (WHERE c >= t) AS blocks, round(sum(bytes) FILTER (WHERE c >= t) * 1.08 / 1048576, 1) AS blocks_mib,
  count(*) FILTER (WHERE c = 1) AS single_keys, count(*) FILTER (WHERE c = 1 AND dict) AS single_keys_in_dictionary
FROM d, (VALUES (2), (8), (64)) v(t) GROUP BY t ORDER BY t;

\timing on
\echo '== newest 10,001 live postings of the match-all key: rows, blocks (x3)'
SELECT count(*), max(doc) FROM (SELECT p.ts, p.doc FROM search_postings p WHERE p.key = :allk AND p.live ORDER BY p.ts DESC, p.doc LIMIT 10001) x;
SELECT count(*), max(doc) FROM (SELECT u.ts, u.doc FROM proto_blocks b CROSS JOIN LATERAL unnest(b.ts, b.doc, b.live) u(ts, doc, live)
  WHERE b.key = :allk AND u.live ORDER BY b.last_ts DESC, b.last_ndoc DESC LIMIT 10001) x;
SELECT count(*), max(doc) FROM (SELECT p.ts, p.doc FROM search_postings p WHERE p.key = :allk AND p.live ORDER BY p.ts DESC, p.doc LIMIT 10001) x;
SELECT count(*), max(doc) FROM (SELECT u.ts, u.doc FROM proto_blocks b CROSS JOIN LATERAL unnest(b.ts, b.doc, b.live) u(ts, doc, live)
  WHERE b.key = :allk AND u.live ORDER BY b.last_ts DESC, b.last_ndoc DESC LIMIT 10001) x;
SELECT count(*), max(doc) FROM (SELECT p.ts, p.doc FROM search_postings p WHERE p.key = :allk AND p.live ORDER BY p.ts DESC, p.doc LIMIT 10001) x;
SELECT count(*), max(doc) FROM (SELECT u.ts, u.doc FROM proto_blocks b CROSS JOIN LATERAL unnest(b.ts, b.doc, b.live) u(ts, doc, live)
  WHERE b.key = :allk AND u.live ORDER BY b.last_ts DESC, b.last_ndoc DESC LIMIT 10001) x;

\echo '== type:domain probed with to_ids:true per row (one lookup each): rows, blocks (x3; the counts must agree)'
\set driver '''atype'' || chr(1) || ''domain'''
\set probe 'ARRAY[''ato_ids'' || chr(1) || ''true'']'
\set rowprobe '(SELECT true FROM search_postings q WHERE q.key = ANY(:probe) AND q.ts = p.ts AND q.doc = p.doc LIMIT 1) IS NOT NULL'
\set blockprobe '(SELECT true FROM unnest(:probe) k(key) CROSS JOIN LATERAL (SELECT b.doc FROM proto_blocks b WHERE b.key = k.key AND (b.last_ts, b.last_ndoc) <= (p.ts, -p.doc) ORDER BY b.last_ts DESC, b.last_ndoc DESC LIMIT 1) c WHERE p.doc = ANY(c.doc) LIMIT 1) IS NOT NULL'
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
\timing off
\echo '== the same with the blocks index INCLUDE (doc): probes index-only (x3, rows first); then as one hash of the probe key''s documents (x2)'
CREATE INDEX proto_blocks_doc_idx ON proto_blocks (key, last_ts DESC, last_ndoc DESC) INCLUDE (doc);
VACUUM ANALYZE proto_blocks;
SELECT round(pg_relation_size('proto_blocks_doc_idx') / 1048576.0, 1) AS include_doc_index_mib;
\timing on
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :rowprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND :blockprobe;
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND p.doc IN (SELECT u.doc FROM proto_blocks b CROSS JOIN LATERAL unnest(b.doc) u(doc) WHERE b.key = ANY(:probe));
SELECT count(*) FROM search_postings p WHERE p.key = :driver AND p.doc IN (SELECT u.doc FROM proto_blocks b CROSS JOIN LATERAL unnest(b.doc) u(doc) WHERE b.key = ANY(:probe));
\timing off
DROP INDEX proto_blocks_doc_idx;

\echo '== a batch (the 500 newest documents) written: as rows, and merged into the blocks that cover them'
CREATE TABLE proto_batch AS SELECT * FROM search_postings WHERE doc IN (SELECT doc FROM proto_newest);
CREATE TABLE proto_rows AS SELECT * FROM search_postings WHERE doc NOT IN (SELECT doc FROM proto_newest) ORDER BY key, ts DESC, doc;
CREATE INDEX ON proto_rows (key, ts DESC, doc) INCLUDE (aud, fct, live);
DELETE FROM proto_blocks WHERE key IN (SELECT key FROM proto_batch);
INSERT INTO proto_blocks
SELECT key, min(ts), -(array_agg(doc ORDER BY r DESC))[1], count(*),
  array_agg(ts ORDER BY r), array_agg(doc ORDER BY r), array_agg(aud ORDER BY r), array_agg(fct ORDER BY r), array_agg(live ORDER BY r)
FROM (SELECT key, ts, doc, aud, fct, live, (row_number() OVER w - 1) AS r, (row_number() OVER w - 1) / :bs AS blk
      FROM search_postings WHERE key IN (SELECT key FROM proto_batch) AND doc NOT IN (SELECT doc FROM proto_newest)
      WINDOW w AS (PARTITION BY key ORDER BY ts DESC, doc)) p
GROUP BY key, blk;
VACUUM ANALYZE proto_rows, proto_blocks, proto_batch;
SELECT (SELECT count(*) FROM proto_batch) AS batch_postings, (SELECT count(DISTINCT key) FROM proto_batch) AS batch_keys;
\timing on
BEGIN;
INSERT INTO proto_rows SELECT * FROM proto_batch ORDER BY key;
ROLLBACK;
BEGIN;
-- Each posting's block: the covering one, else (older than all) the oldest; none: a new key.
CREATE TEMP TABLE t ON COMMIT DROP AS
SELECT x.*, COALESCE(c.last_ts, o.last_ts) AS bts, COALESCE(c.last_ndoc, o.last_ndoc) AS bnd
FROM proto_batch x
LEFT JOIN LATERAL (SELECT b.last_ts, b.last_ndoc FROM proto_blocks b WHERE b.key = x.key AND (b.last_ts, b.last_ndoc) <= (x.ts, -x.doc) ORDER BY b.last_ts DESC, b.last_ndoc DESC LIMIT 1) c ON true
LEFT JOIN LATERAL (SELECT b.last_ts, b.last_ndoc FROM proto_blocks b WHERE c.last_ts IS NULL AND b.key = x.key ORDER BY b.last_ts, b.last_ndoc LIMIT 1) o ON true;
WITH merged AS (
  SELECT e.key, e.bts, e.bnd, count(*) AS n, array_agg(e.ts ORDER BY e.ts DESC, e.doc) AS ts, array_agg(e.doc ORDER BY e.ts DESC, e.doc) AS doc,
    array_agg(e.aud ORDER BY e.ts DESC, e.doc) AS aud, array_agg(e.fct ORDER BY e.ts DESC, e.doc) AS fct, array_agg(e.live ORDER BY e.ts DESC, e.doc) AS live
  FROM (SELECT t.key, t.bts, t.bnd, t.ts, t.doc, t.aud, t.fct, t.live FROM t WHERE t.bts IS NOT NULL
        UNION ALL
        SELECT b.key, b.last_ts, b.last_ndoc, u.ts, u.doc, u.aud, u.fct, u.live FROM (SELECT DISTINCT key, bts, bnd FROM t WHERE bts IS NOT NULL) k
          JOIN proto_blocks b ON b.key = k.key AND b.last_ts = k.bts AND b.last_ndoc = k.bnd
          CROSS JOIN LATERAL unnest(b.ts, b.doc, b.aud, b.fct, b.live) u(ts, doc, aud, fct, live)) e
  GROUP BY e.key, e.bts, e.bnd)
UPDATE proto_blocks b SET n = m.n, ts = m.ts, doc = m.doc, aud = m.aud, fct = m.fct, live = m.live, last_ts = m.ts[m.n], last_ndoc = -m.doc[m.n]
FROM merged m WHERE b.key = m.key AND b.last_ts = m.bts AND b.last_ndoc = m.bnd;
INSERT INTO proto_blocks SELECT key, min(ts), -(array_agg(doc ORDER BY ts, doc DESC))[1], count(*), array_agg(ts ORDER BY ts DESC, doc), array_agg(doc ORDER BY ts DESC, doc),
  array_agg(aud ORDER BY ts DESC, doc), array_agg(fct ORDER BY ts DESC, doc), array_agg(live ORDER BY ts DESC, doc) FROM t WHERE bts IS NULL GROUP BY key;
\timing off
SELECT count(DISTINCT (key, bts, bnd)) FILTER (WHERE bts IS NOT NULL) AS blocks_rewritten, count(*) FILTER (WHERE bts IS NULL) AS postings_of_new_keys FROM t;
ROLLBACK;

\echo '== the same batch appended to an unsorted head per key (HOT updates, fillfactor 50); keys without one: rows'
-- A head holds a key's newest (n mod :bs) postings, as if the full ones had been sealed into blocks;
-- the batch comes grouped by key (as the writer would send it).
CREATE TABLE proto_heads (key text COLLATE "C" NOT NULL, n int NOT NULL, ts timestamptz[] NOT NULL, doc int8[] NOT NULL, aud int4[], fct int2[], live bool[] NOT NULL) WITH (fillfactor = 50);
INSERT INTO proto_heads SELECT key, count(*), array_agg(ts), array_agg(doc), array_agg(aud), array_agg(fct), array_agg(live)
FROM (SELECT p.*, row_number() OVER w AS r, count(*) OVER (PARTITION BY key) AS c FROM proto_rows p WINDOW w AS (PARTITION BY key ORDER BY ts DESC, doc)) x
WHERE c >= 2 AND r <= c % :bs GROUP BY key;
CREATE UNIQUE INDEX ON proto_heads (key);
CREATE TABLE proto_grouped AS SELECT key, count(*) AS n, array_agg(ts) AS ts, array_agg(doc) AS doc, array_agg(aud) AS aud, array_agg(fct) AS fct, array_agg(live) AS live FROM proto_batch GROUP BY key;
VACUUM ANALYZE proto_heads, proto_grouped;
\timing on
BEGIN;
INSERT INTO proto_rows SELECT * FROM proto_batch ORDER BY key;
ROLLBACK;
BEGIN;
UPDATE proto_heads h SET n = h.n + g.n, ts = h.ts || g.ts, doc = h.doc || g.doc, aud = h.aud || g.aud, fct = h.fct || g.fct, live = h.live || g.live
FROM proto_grouped g WHERE h.key = g.key;
INSERT INTO proto_rows SELECT b.* FROM proto_batch b WHERE NOT EXISTS (SELECT 1 FROM proto_heads h WHERE h.key = b.key) ORDER BY b.key;
\timing off
SELECT n_tup_upd AS heads_updated, n_tup_hot_upd AS of_which_hot,
  (SELECT sum(g.n) FROM proto_grouped g WHERE EXISTS (SELECT 1 FROM proto_heads h WHERE h.key = g.key)) AS postings_into_heads
FROM pg_stat_xact_user_tables WHERE relname = 'proto_heads';
ROLLBACK;
DROP TABLE proto_blocks, proto_rows, proto_batch, proto_newest, proto_heads, proto_grouped;
