/**
 * Compaction of the PostgreSQL backend's B-tree indexes (the weekly `compact_search_indexes` job and
 * `npm run reindex -- --compact`).
 *
 * Postings and dictionary entries arrive in no key order, so their indexes split pages half-full and
 * settle about three quarters full: at 1,000,000 attributes the postings index built by indexing was
 * 2,641 MB, the same entries rebuilt 1,960 MB, and reading a key range of 33,691 postings took
 * 12-17 ms against 8.5-10 ms rebuilt (bench/README.md "Search"). `REINDEX INDEX CONCURRENTLY` builds
 * an index again without blocking searches or writes (a share-update-exclusive lock; the index is
 * briefly twice its size on disk).
 *
 * An index is rebuilt when it holds at least COMPACT_MIN_ENTRIES entries and either was never
 * rebuilt here or takes COMPACT_GROWTH times the bytes per entry it took just after its last rebuild
 * (kept in the index's comment). A rebuild that was interrupted leaves an invalid copy
 * (`<name>_ccnew`), dropped before the next one starts.
 */
import type pg from "pg";

/** The indexes that take entries in random key order (the trigram and JSONB GIN indexes do not split so). */
export const COMPACTED_INDEXES = [
  "search_postings_key_idx",
  "search_terms_pkey",
  "search_terms_length_cover_idx",
  "search_terms_suffix_idx",
  "search_documents_pkey",
] as const;

/** Fewer entries than this are never worth a rebuild (a few MB at most). */
export const COMPACT_MIN_ENTRIES = 100_000;
/** Bytes per entry over those just after the last rebuild that call for another. */
export const COMPACT_GROWTH = 1.25;

const COMMENT_PREFIX = "compacted ";

export interface CompactionOptions {
  /** Rebuild every index whatever its size and growth. */
  force?: boolean;
  /** Overrides COMPACT_MIN_ENTRIES (tests). */
  minEntries?: number;
}

export interface IndexCompaction {
  index: string;
  entries: number;
  bytesBefore: number;
  /** null: left as it was. */
  bytesAfter: number | null;
  reason: "forced" | "never compacted" | "grown" | "small" | "compact" | "missing";
}

interface IndexState {
  bytes: number;
  entries: number;
  comment: string | null;
}

async function indexState(client: pg.Pool | pg.PoolClient, name: string): Promise<IndexState | null> {
  const { rows } = await client.query<{ bytes: string; entries: number; comment: string | null }>(
    `SELECT pg_relation_size(c.oid) AS bytes, c.reltuples AS entries, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c WHERE c.oid = to_regclass($1) AND c.relkind = 'i'`,
    [name],
  );
  const row = rows[0];
  return row ? { bytes: Number(row.bytes), entries: Math.max(0, Number(row.entries)), comment: row.comment } : null;
}

/** Bytes per entry recorded by the last rebuild, or null. */
function recordedBytesPerEntry(comment: string | null): number | null {
  if (!comment?.startsWith(COMMENT_PREFIX)) return null;
  const m = / bytes_per_entry=([0-9.]+)/.exec(comment);
  const v = m ? Number(m[1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : null;
}

function reasonFor(state: IndexState, opts: CompactionOptions): IndexCompaction["reason"] {
  if (opts.force) return "forced";
  if (state.entries < (opts.minEntries ?? COMPACT_MIN_ENTRIES)) return "small";
  const recorded = recordedBytesPerEntry(state.comment);
  if (recorded === null) return "never compacted";
  return state.bytes / state.entries >= recorded * COMPACT_GROWTH ? "grown" : "compact";
}

/**
 * Rebuilds the indexes of COMPACTED_INDEXES that need it, one at a time. Must not run inside a
 * transaction (REINDEX CONCURRENTLY cannot); safe beside searches, writes and another compaction
 * (PostgreSQL refuses a second concurrent rebuild of the same index: that one is reported and skipped).
 */
export async function compactSearchIndexes(pool: pg.Pool, opts: CompactionOptions = {}): Promise<IndexCompaction[]> {
  const results: IndexCompaction[] = [];
  for (const index of COMPACTED_INDEXES) {
    const before = await indexState(pool, index);
    if (before === null) {
      results.push({ index, entries: 0, bytesBefore: 0, bytesAfter: null, reason: "missing" });
      continue;
    }
    const reason = reasonFor(before, opts);
    if (reason === "small" || reason === "compact") {
      results.push({ index, entries: before.entries, bytesBefore: before.bytes, bytesAfter: null, reason });
      continue;
    }
    await dropInterruptedCopies(pool, index);
    // Identifiers come from COMPACTED_INDEXES, never from input.
    await pool.query(`REINDEX INDEX CONCURRENTLY "${index}"`);
    const after = (await indexState(pool, index))!;
    const perEntry = after.entries > 0 ? after.bytes / after.entries : 0;
    const comment = `${COMMENT_PREFIX}${new Date().toISOString()} bytes_per_entry=${perEntry.toFixed(2)}`;
    await pool.query(`COMMENT ON INDEX "${index}" IS '${comment}'`);
    results.push({ index, entries: after.entries, bytesBefore: before.bytes, bytesAfter: after.bytes, reason });
  }
  return results;
}

/** Invalid copies a cancelled or crashed `REINDEX CONCURRENTLY` left behind (`<name>_ccnew`, `<name>_ccnew1`, ...). */
async function dropInterruptedCopies(pool: pg.Pool, index: string): Promise<void> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
      WHERE NOT i.indisvalid AND c.relname ~ $1 AND c.relnamespace = to_regnamespace(current_schema())`,
    [`^${index}_ccnew[0-9]*$`],
  );
  for (const { name } of rows) await pool.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
}
