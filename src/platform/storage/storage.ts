import type { Readable } from "node:stream";

/**
 * Where uploaded files live: a local directory or an S3 bucket, behind one interface. Keys are
 * relative paths of safe segments (`feed-uploads/<uuid>/manifest.json`); a key that is not is refused.
 */
export interface Storage {
  /**
   * Streams `body` to `key`. Past `maxBytes` the write is abandoned, nothing stays stored, and
   * `StorageLimitError` is thrown. Returns the number of bytes stored.
   */
  put(key: string, body: Readable, opts?: { maxBytes?: number }): Promise<number>;
  /** Throws `StorageNotFoundError` for a missing key. */
  get(key: string): Promise<Readable>;
  size(key: string): Promise<number | null>;
  /** Keys under `prefix/`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** The keys one level under `prefix/` (a file, or a folder of keys), sorted; writes in progress are not listed. */
  children(prefix: string): Promise<string[]>;
  /** The key and everything under `key/`. */
  deleteTree(key: string): Promise<void>;
}

export class StorageLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

export class StorageNotFoundError extends Error {}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$/;

/** Checks a storage key: segments of letters, digits, `.`, `_` and `-`, never `.` or `..`. */
export function checkKey(key: string): string {
  const segments = key.split("/");
  if (key.length > 1024 || segments.some((s) => !SEGMENT.test(s) || s === "." || s === "..")) throw new Error(`invalid storage key: ${key.slice(0, 100)}`);
  return key;
}
