/**
 * Per-request batching of a resolver's reads (the DataLoader pattern): every call made while
 * graphql-js completes a list (one per item, synchronously) joins one batch, loaded by one call
 * once those promise jobs have run; so a page of 50 events reads its children in one statement.
 * Batches live as long as the request's context.
 */
interface Batch<K, V> {
  keys: K[];
  result: Promise<Map<K, V>>;
}

const batchesOf = new WeakMap<object, Map<string, Batch<unknown, unknown>>>();

export function loadBatched<K, V>(context: object, name: string, key: K, load: (keys: K[]) => Promise<Map<K, V>>): Promise<V | undefined> {
  let batches = batchesOf.get(context);
  if (!batches) batchesOf.set(context, (batches = new Map()));
  let batch = batches.get(name) as Batch<K, V> | undefined;
  if (!batch) {
    const keys: K[] = [];
    // Loaded after the promise jobs already queued (the other items of the list), as DataLoader
    // does; from then on, calls start a new batch.
    const result = Promise.resolve()
      .then(() => new Promise<void>((resolve) => process.nextTick(resolve)))
      .then(() => {
        batches.delete(name);
        return load([...new Set(keys)]);
      });
    batch = { keys, result };
    batches.set(name, batch as Batch<unknown, unknown>);
  }
  batch.keys.push(key);
  return batch.result.then((values) => values.get(key));
}
