import { SearchQueryError, type HistogramRequest, type HistogramResult, type ScanRequest, type SearchHit, type SearchIndex, type SearchRequest, type SearchResult } from "./search-index.ts";

interface Waiter {
  grant(): void;
}

/**
 * At most `max` searches of one process run at once, whoever asks: more wait in order for a turn,
 * each no longer than its own timeout, so a burst queues here instead of taking every database
 * connection or flooding OpenSearch. A search that gets no turn in time fails as "unavailable" (503).
 */
export class SearchGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly max: number) {}

  /** Runs `fn` in a turn; it gets what is left of `timeoutMs` after the wait. */
  async run<T>(timeoutMs: number, fn: (remainingMs: number) => Promise<T>): Promise<T> {
    const started = Date.now();
    await this.enter(timeoutMs);
    try {
      return await fn(Math.max(1, timeoutMs - (Date.now() - started)));
    } finally {
      this.leave();
    }
  }

  private enter(timeoutMs: number): Promise<void> {
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new SearchQueryError(`No search could start within ${timeoutMs} ms: the service is running as many as it allows`, "unavailable"));
      }, timeoutMs);
      this.waiting.push(waiter);
    });
  }

  private leave(): void {
    // The turn passes straight to the next waiter, so `running` never drops below what runs.
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.running--;
  }
}

/**
 * `index` with its searches (and histograms) taking turns at `gate`, and each page of its scans one turn (an export
 * never holds a turn between pages); its other methods are left as they are.
 */
export function gatedSearches<I extends SearchIndex>(index: I, gate: SearchGate): I {
  const search = index.search.bind(index);
  const scan = index.scan.bind(index);
  const histogram = index.histogram.bind(index);
  return Object.assign(index, {
    histogram: (req: HistogramRequest): Promise<HistogramResult> => gate.run(req.timeoutMs, (remainingMs) => histogram({ ...req, timeoutMs: remainingMs })),
    search: (req: SearchRequest): Promise<SearchResult> => gate.run(req.timeoutMs, (remainingMs) => search({ ...req, timeoutMs: remainingMs })),
    scan: (req: ScanRequest): AsyncIterable<SearchHit[]> => scan({ ...req, turn: (timeoutMs, fn) => gate.run(timeoutMs, fn) }),
  });
}
