import { Transform } from "node:stream";

/**
 * A pass-through that counts the bytes through it into `tally` and fails with `tooMany()` once more
 * than `max` have passed. A tally shared by several streams budgets them together (archive entries).
 */
export function byteLimit(max: number, tooMany: () => Error, tally: { bytes: number } = { bytes: 0 }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      tally.bytes += chunk.length;
      done(tally.bytes > max ? tooMany() : null, chunk);
    },
  });
}
