import { AsyncLocalStorage } from "node:async_hooks";
import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import { errors } from "../../platform/errors.ts";
import { readRuntimeSetting } from "../settings/index.ts";

/** How long the `search.max_concurrent_per_user` setting is reused before it is read again. */
const SETTING_TTL_MS = 2_000;
/** Searches mostly take well under a second; a caller told to wait one rarely waits in vain. */
const RETRY_AFTER_SECONDS = 1;

/**
 * At most `search.max_concurrent_per_user` searches of one user (every token and API key of theirs
 * together) run at once in this process; one more is refused at once with 429 and Retry-After,
 * before it takes a turn at the search gate. Work that runs several searches for one request (a
 * hunt over two indices, a histogram's many searches) holds one slot for all of them: nested calls
 * of the same user inside a slot do not count again. System work (no user) is not limited here.
 */
export class SearchLimiter {
  private readonly running = new Map<number, number>();
  private readonly holder = new AsyncLocalStorage<number>();
  private limit: { value: number; readAt: number } | null = null;

  constructor(private readonly ctx: AppContext) {}

  async run<T>(p: Principal, fn: () => Promise<T>): Promise<T> {
    const user = p.userId;
    if (user === null || this.holder.getStore() === user) return fn();
    const release = await this.acquire(p);
    try {
      return await this.holder.run(user, fn);
    } finally {
      release();
    }
  }

  /**
   * Takes one of the caller's slots until the returned function is called (it may be called more
   * than once): for work that outlives one call, such as a streamed export, which holds its slot
   * while it streams. 429 beyond the limit, as `run`.
   */
  async acquire(p: Principal): Promise<() => void> {
    const user = p.userId;
    if (user === null) return () => undefined;
    const max = await this.maxPerUser();
    const n = this.running.get(user) ?? 0;
    if (n >= max) {
      throw errors.rateLimited(`Too many concurrent searches: at most ${max} per user run at once; try again when one has finished`, RETRY_AFTER_SECONDS);
    }
    this.running.set(user, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(user) ?? 1) - 1;
      if (left > 0) this.running.set(user, left);
      else this.running.delete(user);
    };
  }

  private async maxPerUser(): Promise<number> {
    const now = Date.now();
    if (!this.limit || now - this.limit.readAt > SETTING_TTL_MS) {
      const setting = await readRuntimeSetting(this.ctx.db.pool, "search");
      this.limit = { value: setting.max_concurrent_per_user, readAt: now };
    }
    return this.limit.value;
  }
}

const limiters = new WeakMap<AppContext, SearchLimiter>();

/** The process's one limiter (the API's search service and the hunt engine's share it). */
export function searchLimiterOf(ctx: AppContext): SearchLimiter {
  let limiter = limiters.get(ctx);
  if (!limiter) limiters.set(ctx, (limiter = new SearchLimiter(ctx)));
  return limiter;
}
