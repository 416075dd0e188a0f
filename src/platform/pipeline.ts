/**
 * Works through `items` in order, preparing item i + 1 while item i is consumed: for a read on one
 * process (PostgreSQL, the network, this process's parser) overlapping a write on another. At most
 * one item is prepared ahead; consumption stays sequential and in order.
 *
 * A failed preparation is thrown when its turn comes (items before it are consumed). A failed
 * consumption is thrown after the preparation it overlapped has settled, which is then dropped
 * (never an unhandled rejection, never work still running after the call has returned).
 */
export async function pipelined<I, P>(
  items: readonly I[],
  prepare: (item: I, index: number) => Promise<P>,
  consume: (prepared: P, item: I, index: number) => Promise<void>,
): Promise<void> {
  const start = (i: number): Promise<P> | null => {
    if (i >= items.length) return null;
    const p = prepare(items[i], i);
    // Awaited in its turn; until then a failure must not count as unhandled (which ends the process).
    p.catch(() => undefined);
    return p;
  };
  let next = start(0);
  for (let i = 0; next !== null; i++) {
    const prepared = await next;
    next = start(i + 1);
    try {
      await consume(prepared, items[i], i);
    } catch (err) {
      await next?.catch(() => undefined);
      throw err;
    }
  }
}
