/**
 * The ids a report will refer to, packed: one byte for the object type and the uuid's 16 bytes,
 * 17 bytes an id where a JavaScript string of `indicator--<uuid>` costs about 60-80. An export of a
 * million attributes of a single event holds 17 MB of these until the event's report is written.
 */
import { formatUuid, uuidBytes } from "./ids.ts";

/** The objects an attribute adds to its event's report. */
const TYPES = ["indicator", "observed-data", "note", "relationship"] as const;
const ENTRY = 17;

export class IdList {
  private buf = Buffer.alloc(ENTRY * 4);
  private n = 0;

  get length(): number {
    return this.n;
  }

  /** Bytes held, for the writer's memory accounting. */
  get bytes(): number {
    return this.buf.length;
  }

  push(id: string): void {
    const sep = id.indexOf("--");
    const code = TYPES.indexOf(id.slice(0, sep) as (typeof TYPES)[number]);
    if (code < 0 || id.length - sep - 2 !== 36) throw new Error(`IdList cannot hold ${id}`);
    if ((this.n + 1) * ENTRY > this.buf.length) {
      const bigger = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(bigger);
      this.buf = bigger;
    }
    const at = this.n * ENTRY;
    this.buf[at] = code;
    uuidBytes(id.slice(sep + 2)).copy(this.buf, at + 1);
    this.n++;
  }

  *[Symbol.iterator](): Generator<string> {
    for (let i = 0; i < this.n; i++) {
      const at = i * ENTRY;
      yield `${TYPES[this.buf[at]]}--${formatUuid(this.buf.subarray(at + 1, at + ENTRY))}`;
    }
  }
}
