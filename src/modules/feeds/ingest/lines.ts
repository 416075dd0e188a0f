import type { Readable } from "node:stream";

/** Lines longer than this are rejected one by one (a 10 MB line is data, not an indicator). */
export const MAX_LINE_BYTES = 64 * 1024;

export type Line = { number: number; text: string } | { number: number; tooLong: true };

/**
 * The lines of a text stream without holding more than one line (up to MAX_LINE_BYTES) in memory;
 * an over-long line is reported as such and skipped to its end. Invalid UTF-8 becomes U+FFFD.
 */
export async function* readLines(stream: Readable): AsyncGenerator<Line> {
  const decoder = new TextDecoder("utf-8");
  let current = "";
  let skipping = false;
  let number = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      const piece = nl === -1 ? text.slice(start) : text.slice(start, nl);
      if (!skipping) {
        current += piece;
        if (Buffer.byteLength(current) > MAX_LINE_BYTES) {
          skipping = true;
          current = "";
        }
      }
      if (nl === -1) break;
      number++;
      if (skipping) yield { number, tooLong: true };
      else yield { number, text: current.replace(/\r$/, "") };
      current = "";
      skipping = false;
      start = nl + 1;
    }
  }
  const tail = decoder.decode();
  if (!skipping) current += tail;
  if (skipping) yield { number: number + 1, tooLong: true };
  else if (current !== "") yield { number: number + 1, text: current.replace(/\r$/, "") };
}

/** One CSV record of a line (RFC 4180 quoting within the line). */
export function splitCsvLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === "") quoted = true;
    else if (line.startsWith(delimiter, i)) {
      cells.push(cell);
      cell = "";
      i += delimiter.length - 1;
    } else cell += c;
  }
  cells.push(cell);
  return cells.map((s) => s.trim());
}
