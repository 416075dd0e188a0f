/**
 * Loads what the resolvers of one GraphQL request ask for in one call: the keys requested until
 * the event loop turns (graphql-js resolves a field of every item of a list in one go) are
 * gathered and loaded together, so a field on each event of a page costs one query, not one per
 * event. Loaders live with the request's context, so they never mix two callers.
 */
export class BatchLoader<K, V> {
  private waiting: { key: K; resolve: (v: V) => void; reject: (err: unknown) => void }[] = [];

  constructor(
    private readonly loadMany: (keys: K[]) => Promise<Map<K, V>>,
    private readonly missing: () => V,
  ) {}

  load(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ key, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const found = await this.loadMany([...new Set(batch.map((w) => w.key))]);
      for (const w of batch) w.resolve(found.get(w.key) ?? this.missing());
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}

const loaders = new WeakMap<object, Map<string, BatchLoader<unknown, unknown>>>();

/** The loader named `name` of the request whose context is `ctx`, created on first use. */
export function loaderOf<K, V>(ctx: object, name: string, create: () => BatchLoader<K, V>): BatchLoader<K, V> {
  let mine = loaders.get(ctx);
  if (!mine) loaders.set(ctx, (mine = new Map()));
  let loader = mine.get(name);
  if (!loader) mine.set(name, (loader = create() as BatchLoader<unknown, unknown>));
  return loader as BatchLoader<K, V>;
}

const memos = new WeakMap<object, Map<string, Promise<unknown>>>();

/** `load()`'s answer, loaded once per request (the context) whatever the number of fields asking. */
export function requestMemo<T>(ctx: object, name: string, load: () => Promise<T>): Promise<T> {
  let mine = memos.get(ctx);
  if (!mine) memos.set(ctx, (mine = new Map()));
  let memo = mine.get(name);
  if (!memo) mine.set(name, (memo = load()));
  return memo as Promise<T>;
}
