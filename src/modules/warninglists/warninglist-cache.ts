import type pg from "pg";
import { enabledListsVersion } from "./warninglist-store.ts";
import { WarninglistBuilder, type ListMeta, type WarninglistMatcher, type WarninglistType } from "./matchers.ts";

/**
 * A trigger on `warninglists` NOTIFYs this channel on every change (import, enable, disable),
 * whoever makes it: every process checks its compiled matcher's version when the change commits.
 */
export const WARNINGLISTS_CHANNEL = "workbench_warninglists";
/** Entries read per statement while compiling: a million-entry list never sits in one result. */
const ENTRY_PAGE = 100_000;

/**
 * While the LISTEN connection is down, the kept matcher is checked against the enabled lists'
 * version at most this often: a change made then reaches this process's writes within this delay.
 */
export const VERSION_CHECK_MS = 2_000;

interface Kept {
  version: string;
  matcher: WarninglistMatcher;
}

/**
 * The process's compiled matcher of the enabled warninglists, kept with the version of the lists it
 * was compiled from (`enabledListsVersion`), and used without a check until something says it may
 * be stale: a notification (or this process's own change), after which the next use reads the
 * version and recompiles only if it changed. While the LISTEN connection is down (and once after it
 * is back: notifications may have been missed) the version is read at most every VERSION_CHECK_MS.
 * Compiling every default list takes about a second, which an outage must not add to every write.
 */
export class WarninglistCache {
  private kept: Kept | null = null;
  private loading: Promise<WarninglistMatcher> | null = null;
  /** Bumped by every invalidation: a load that overlapped one is not kept. */
  private generation = 0;
  private listening = false;
  /** When the kept version was last confirmed (performance.now()); -Infinity: check before use. */
  private checkedAt = -Infinity;

  constructor(private readonly pool: pg.Pool) {}

  /** Called by the pubsub listener: on connect (true) and on connection loss (false). */
  setEnabled(listening: boolean): void {
    this.listening = listening;
    this.checkedAt = -Infinity;
  }

  /** A notification, or this process's own change once committed: the next use checks the version. */
  invalidate(): void {
    this.generation++;
    this.checkedAt = -Infinity;
    // Later callers must not share a check that may have read the version before the change.
    this.loading = null;
  }

  matcher(): Promise<WarninglistMatcher> {
    const confirmed = this.listening ? this.checkedAt > -Infinity : performance.now() - this.checkedAt < VERSION_CHECK_MS;
    if (this.kept && confirmed) return Promise.resolve(this.kept.matcher);
    // Concurrent writes share one version check (and at most one compilation).
    if (this.loading) return this.loading;
    const loading = this.load();
    const done = () => {
      if (this.loading === loading) this.loading = null;
    };
    loading.then(done, done);
    this.loading = loading;
    return loading;
  }

  private async load(): Promise<WarninglistMatcher> {
    const generation = this.generation;
    const started = performance.now();
    // Read before compiling: a change committed in between is compiled under the older version, so
    // the next check compiles once more, never the other way round.
    const version = await enabledListsVersion(this.pool);
    const matcher = this.kept?.version === version ? this.kept.matcher : await compileEnabledLists(this.pool);
    // A load that overlapped an invalidation serves its callers but is not kept.
    if (generation === this.generation) {
      this.kept = { version, matcher };
      this.checkedAt = started;
    }
    return matcher;
  }
}

/** Reads every enabled list with its entries and compiles them. */
export async function compileEnabledLists(pool: pg.Pool): Promise<WarninglistMatcher> {
  const { rows } = await pool.query<{ id: number; name: string; type: WarninglistType; matching_attributes: string[] | null; entry_count: number }>(
    "SELECT id, name, type, matching_attributes, entry_count FROM warninglists WHERE enabled ORDER BY id",
  );
  const builder = new WarninglistBuilder();
  for (const r of rows) {
    const meta: ListMeta = { id: r.id, name: r.name, type: r.type, matchingAttributes: r.matching_attributes ?? [] };
    const add = builder.addList(meta);
    for (let from = 0; from < r.entry_count; from += ENTRY_PAGE) {
      const page = await pool.query<[string]>({
        text: "SELECT value FROM warninglist_entries WHERE warninglist_id = $1 AND position >= $2 AND position < $3",
        values: [r.id, from, from + ENTRY_PAGE],
        rowMode: "array",
      });
      add(page.rows.map((x) => x[0]));
    }
  }
  return builder.build();
}
