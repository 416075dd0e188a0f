/**
 * Text written as a stream of chunks (exports, downloads) is joined into chunks of about
 * `CHUNK_CHARS`, never one chunk per page of 1,000 documents: V8 allocates a string above 128 KiB
 * in its large-object space and moves it to the old generation if a young-generation collection
 * finds it alive, and the old generation is only collected after it has grown by hundreds of MB.
 * Measured on an ndjson export of 100,000 attributes (700 KB pages): 21 MB promoted with one chunk
 * per page, under 1 MB with chunks of 32 K characters (bench/README, "Exports").
 */

/** Flush threshold, in UTF-16 units: a two-byte string of this length is 64 KiB. */
export const CHUNK_CHARS = 32 * 1024;

export class ChunkBuilder {
  private parts: string[] = [];
  private chars = 0;

  push(text: string): void {
    this.parts.push(text);
    this.chars += text.length;
  }

  get full(): boolean {
    return this.chars >= CHUNK_CHARS;
  }

  get empty(): boolean {
    return this.chars === 0;
  }

  /** The text pushed since the last `take`, joined. */
  take(): string {
    const text = this.parts.join("");
    this.parts = [];
    this.chars = 0;
    return text;
  }
}

/** The chunks of `items` encoded one by one (`encode` gives each item's text). */
export function* chunked<T>(items: Iterable<T>, encode: (item: T) => string): Generator<string> {
  const b = new ChunkBuilder();
  for (const item of items) {
    b.push(encode(item));
    if (b.full) yield b.take();
  }
  if (!b.empty) yield b.take();
}
