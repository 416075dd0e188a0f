/**
 * GET requests to the external services hunts ask (vulnerability database, rules service): a
 * deadline per attempt, a cap on the bytes read, retries with backoff for what a retry can mend
 * (no answer, a refused connection, 5xx, 429), and one error type that says which service failed
 * and why. A caller's `signal` (the run's deadline) stops everything at once.
 */
export interface HttpJsonOptions {
  /** The service's name in messages ("the vulnerability database"). */
  service: string;
  timeoutMs: number;
  maxBytes: number;
  maxAttempts: number;
  signal?: AbortSignal;
  /** First retry delay; doubles per attempt (tests shorten it). */
  backoffMs?: number;
}

/** The external service failed: unreachable, too slow, an error status, too large or not JSON. */
export class UpstreamError extends Error {
  constructor(
    readonly service: string,
    message: string,
  ) {
    super(`${service}: ${message}`);
  }
}

class Retryable extends Error {}

const MAX_RETRY_AFTER_MS = 10_000;

export async function getJson(url: string, opts: HttpJsonOptions): Promise<unknown> {
  const backoff = opts.backoffMs ?? 250;
  let last = "no attempt was made";
  for (let attempt = 1; attempt <= opts.maxAttempts; attempt++) {
    if (opts.signal?.aborted) break;
    try {
      return await attemptOnce(url, opts);
    } catch (err) {
      if (!(err instanceof Retryable)) throw err;
      last = err.message;
      if (attempt < opts.maxAttempts) await sleep(retryDelay(err, backoff * 2 ** (attempt - 1)), opts.signal);
    }
  }
  const tries = opts.maxAttempts === 1 ? "" : ` (after ${opts.maxAttempts} attempts)`;
  throw new UpstreamError(opts.service, opts.signal?.aborted ? `the run's time limit passed; last problem: ${last}` : `${last}${tries}`);
}

async function attemptOnce(url: string, opts: HttpJsonOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const where = describe(url);
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { accept: "application/json", "user-agent": "workbench-hunts/1" }, redirect: "follow" });
  } catch (err) {
    if (timeout.aborted) throw new Retryable(`no answer from ${where} within ${opts.timeoutMs} ms`);
    if (opts.signal?.aborted) throw new Retryable("cancelled");
    throw new Retryable(`cannot reach ${where}: ${causeOf(err)}`);
  }
  if (res.status === 429 || res.status >= 500) {
    await res.body?.cancel().catch(() => undefined);
    throw Object.assign(new Retryable(`HTTP ${res.status} from ${where}`), { retryAfter: res.headers.get("retry-after") });
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new UpstreamError(opts.service, `HTTP ${res.status} from ${where}`);
  }
  const text = await readCapped(res, opts, where, timeout);
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError(opts.service, `${where} answered something that is not JSON (${text.length} bytes starting ${JSON.stringify(text.slice(0, 40))})`);
  }
}

async function readCapped(res: Response, opts: HttpJsonOptions, where: string, timeout: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new UpstreamError(opts.service, `${where} answered ${declared} bytes, more than the ${opts.maxBytes} allowed`);
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body?.getReader();
  try {
    for (;;) {
      const next = await (reader?.read() ?? { done: true as const, value: undefined });
      if (next.done) break;
      bytes += next.value.length;
      if (bytes > opts.maxBytes) {
        await reader?.cancel().catch(() => undefined);
        throw new UpstreamError(opts.service, `${where} answered more than the ${opts.maxBytes} bytes allowed`);
      }
      chunks.push(next.value);
    }
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    if (timeout.aborted) throw new Retryable(`${where} did not finish its answer within ${opts.timeoutMs} ms`);
    throw new Retryable(`the answer from ${where} broke off: ${causeOf(err)}`);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The URL without its query string (which can be long) for messages. */
function describe(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname.length > 120 ? `${u.pathname.slice(0, 120)}…` : u.pathname}`;
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function retryDelay(err: Retryable, fallback: number): number {
  const header = (err as Retryable & { retryAfter?: string | null }).retryAfter;
  const seconds = header ? Number(header) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : fallback;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
