import type pg from "pg";
import { WarninglistBuilder, type ListMeta, type WarninglistMatcher, type WarninglistType } from "./matchers.ts";

/**
 * A trigger on `warninglists` NOTIFYs this channel on every change (import, enable, disable),
 * whoever makes it: every process drops its compiled matcher when the change commits.
 */
export const WARNINGLISTS_CHANNEL = "workbench_warninglists";
/** Entries read per statement while compiling: a million-entry list never sits in one result. */
const ENTRY_PAGE = 100_000;

/**
 * The process's compiled matcher of the enabled warninglists, built on first use after each change.
 * A build that overlapped a change serves the callers already waiting for it but is not kept. While
 * the LISTEN connection is down nothing is cached: notifications could be missed.
 */
export class WarninglistCache {
  private current: Promise<WarninglistMatcher> | null = null;
  private enabled = false;

  constructor(private readonly pool: pg.Pool) {}

  /** Called by the pubsub listener: on connect (true) and on connection loss (false). */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.invalidate();
  }

  invalidate(): void {
    this.current = null;
  }

  matcher(): Promise<WarninglistMatcher> {
    if (this.current) return this.current;
    const build = compileEnabledLists(this.pool);
    if (!this.enabled) return build;
    this.current = build;
    build.catch(() => {
      if (this.current === build) this.current = null;
    });
    return build;
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
