import pg from "pg";
import type { Logger } from "./logger.ts";

const CHANNEL = "workbench_events";
/** PostgreSQL rejects NOTIFY payloads of 8000 bytes or more; publishers send ids, not documents. */
const MAX_PAYLOAD_BYTES = 7900;

type Listener = (payload: unknown) => void;

/**
 * Cross-process publish/subscribe over PostgreSQL LISTEN/NOTIFY: a worker process publishes, every
 * API process receives and fans out to its own subscribers. One dedicated connection per process
 * listens; it reconnects with backoff when the database restarts.
 */
export class PgPubSub {
  private listener: pg.Client | null = null;
  private readonly topics = new Map<string, Set<Listener>>();
  private closed = false;
  private reconnectDelayMs = 250;
  /** Other channels this process listens to (raw payloads), e.g. the authentication-cache channel. */
  private readonly channels = new Map<string, (payload: string) => void>();
  private readonly connectionHandlers: ((connected: boolean) => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  /** Registers a raw channel before start(); its handler gets every payload. */
  listen(channel: string, handler: (payload: string) => void): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.channels.set(channel, handler);
  }

  /** Told `false` when the listening connection is lost and `true` once it listens again. */
  onConnectionChange(handler: (connected: boolean) => void): void {
    this.connectionHandlers.push(handler);
  }

  get listening(): boolean {
    return this.listener !== null;
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "workbench-listen" });
    client.on("notification", (msg) => {
      if (msg.channel === CHANNEL) this.dispatch(msg.payload);
      else if (msg.payload !== undefined) this.channels.get(msg.channel)?.(msg.payload);
    });
    client.on("error", (err) => {
      this.log.warn({ err }, "pubsub listener connection lost");
      if (this.listener === client) this.reconnect();
    });
    client.on("end", () => {
      if (this.listener === client && !this.closed) this.reconnect();
    });
    await client.connect();
    for (const channel of [CHANNEL, ...this.channels.keys()]) await client.query(`LISTEN ${channel}`);
    this.listener = client;
    this.reconnectDelayMs = 250;
    for (const h of this.connectionHandlers) h(true);
  }

  /** `queryable` lets a caller publish inside its transaction: delivery then happens on commit. */
  async publish(topic: string, payload: unknown, queryable: Pick<pg.Pool, "query"> = this.pool): Promise<void> {
    const text = JSON.stringify({ topic, payload });
    if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new Error(`pubsub payload for ${topic} is too large`);
    await queryable.query("SELECT pg_notify($1, $2)", [CHANNEL, text]);
  }

  subscribe(topic: string): AsyncIterableIterator<unknown> & { return(): Promise<IteratorResult<unknown>> } {
    const queue: unknown[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const listener: Listener = (p) => {
      queue.push(p);
      wake?.();
    };
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(listener);
    const unsubscribe = () => {
      done = true;
      const s = this.topics.get(topic);
      s?.delete(listener);
      if (s && s.size === 0) this.topics.delete(topic);
      wake?.();
    };
    const iterator = {
      async next(): Promise<IteratorResult<unknown>> {
        while (!done && queue.length === 0) await new Promise<void>((r) => (wake = r));
        wake = null;
        if (queue.length) return { value: queue.shift(), done: false };
        return { value: undefined, done: true };
      },
      async return(): Promise<IteratorResult<unknown>> {
        unsubscribe();
        return { value: undefined, done: true };
      },
      async throw(err?: unknown): Promise<IteratorResult<unknown>> {
        unsubscribe();
        throw err;
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Number of live local subscriptions (for leak tests and metrics). */
  subscriberCount(): number {
    let n = 0;
    for (const s of this.topics.values()) n += s.size;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.listener;
    this.listener = null;
    for (const h of this.connectionHandlers) h(false);
    await client?.end().catch(() => undefined);
  }

  private dispatch(raw: string | undefined): void {
    if (!raw) return;
    let msg: { topic?: unknown; payload?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg.topic !== "string") return;
    for (const l of this.topics.get(msg.topic) ?? []) l(msg.payload);
  }

  private reconnect(): void {
    const old = this.listener;
    this.listener = null;
    for (const h of this.connectionHandlers) h(false);
    old?.end().catch(() => undefined);
    if (this.closed) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, 10_000);
    setTimeout(() => {
      if (this.closed) return;
      this.start().catch((err) => {
        this.log.warn({ err }, "pubsub reconnect failed");
        this.reconnect();
      });
    }, delay).unref();
  }
}

/**
 * Maps a subscription's messages (skipping those `map` turns into undefined), optionally yielding
 * `first()` before them. Unlike an async generator looping over the source, `return()` ends a
 * pending `next()` at once (the source's return wakes it): a client that leaves releases its
 * subscription even when no message ever comes.
 */
export function mapSubscription<T, U>(
  source: AsyncIterator<T> & { return(): Promise<IteratorResult<T>> },
  map: (message: T) => Promise<U | undefined>,
  first?: () => Promise<U>,
): AsyncIterableIterator<U> {
  let pendingFirst = first;
  const iterator: AsyncIterableIterator<U> = {
    async next(): Promise<IteratorResult<U>> {
      if (pendingFirst) {
        const f = pendingFirst;
        pendingFirst = undefined;
        return { value: await f(), done: false };
      }
      for (;;) {
        const r = await source.next();
        if (r.done) return { value: undefined, done: true };
        const mapped = await map(r.value);
        if (mapped !== undefined) return { value: mapped, done: false };
      }
    },
    async return(): Promise<IteratorResult<U>> {
      await source.return();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
