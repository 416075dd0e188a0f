import fs from "node:fs";
import { Readable } from "node:stream";
import { byteLimit } from "../byte-limit.ts";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import yauzl from "yauzl";

export type ArchiveKind = "zip" | "tar.gz";

export interface ExtractBudget {
  maxEntries: number;
  /** Uncompressed bytes of all the files handed out, counted as they stream (not trusted from headers). */
  maxTotalBytes: number;
}

/** A problem with the archive itself (the caller answers 400 with the message). */
export class ArchiveError extends Error {}

export interface ExtractOutcome {
  entries: number;
  /** Entries dropped for an unsafe path (`../`, absolute, backslashes, drive letters). */
  unsafe: string[];
}

/**
 * Reads a zip or tar.gz file entry by entry and hands each regular file with a safe relative path
 * to `onFile` as a stream (which the callback must consume). Links are refused (the archive is
 * rejected); unsafe paths are dropped; directories and other entry kinds are skipped. Entry count
 * and uncompressed bytes are budgeted, and zip entries whose real size differs from their header
 * fail. Nothing is ever written by this module: where members go is the callback's business.
 */
export async function extractArchive(
  file: string,
  kind: ArchiveKind,
  budget: ExtractBudget,
  onFile: (name: string, stream: Readable) => Promise<void>,
): Promise<ExtractOutcome> {
  const state = { entries: 0, bytes: 0, unsafe: [] as string[] };
  const counted = (stream: Readable): Readable => {
    const counter = byteLimit(budget.maxTotalBytes, () => new ArchiveError(`the archive expands to more than ${budget.maxTotalBytes} bytes`), state);
    stream.on("error", (err) => counter.destroy(err));
    // An entry stream can fail before it is handed out (yauzl checks sizes as it inflates).
    if (stream.errored) counter.destroy(stream.errored);
    return stream.pipe(counter);
  };
  const admit = (name: string): string | null => {
    state.entries++;
    if (state.entries > budget.maxEntries) throw new ArchiveError(`the archive has more than ${budget.maxEntries} entries`);
    const safe = safeName(name);
    if (safe === null) state.unsafe.push(name.slice(0, 200));
    return safe;
  };
  if (kind === "zip") await readZip(file, admit, counted, onFile);
  else await readTarGz(file, admit, counted, onFile);
  return { entries: state.entries, unsafe: state.unsafe };
}

/** A relative path of plain segments, or null. `./a` becomes `a`. */
function safeName(raw: string): string | null {
  if (raw.includes("\\") || raw.includes("\0") || raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) return null;
  const segments = raw.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0 || segments.some((s) => s === "..")) return null;
  return segments.join("/");
}

type Admit = (name: string) => string | null;
type Count = (s: Readable) => Readable;
type OnFile = (name: string, stream: Readable) => Promise<void>;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function readZip(file: string, admit: Admit, count: Count, onFile: OnFile): Promise<void> {
  return new Promise((resolve, reject) => {
    // decodeStrings false: yauzl would otherwise abort the whole archive on the first `../` name;
    // names are checked here instead, and unsafe ones dropped.
    yauzl.open(file, { lazyEntries: true, validateEntrySizes: true, decodeStrings: false, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(new ArchiveError(`Invalid zip archive: ${err?.message ?? "unreadable"}`));
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        zip.close();
        reject(e instanceof ArchiveError ? e : new ArchiveError(`Invalid zip archive: ${(e as Error).message}`));
      };
      zip.on("error", fail);
      zip.on("end", () => !failed && resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        void (async () => {
          const raw = entry.fileName as unknown as Buffer;
          const name = (entry.generalPurposeBitFlag & 0x800 ? raw.toString("utf8") : raw.toString("latin1"));
          const safe = admit(name);
          const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
          if (mode === S_IFLNK) throw new ArchiveError(`Links are not allowed in archives: ${name.slice(0, 200)}`);
          if (safe === null || name.endsWith("/")) return;
          const stream = await new Promise<Readable>((res, rej) =>
            zip.openReadStream(entry, (e, s) => {
              if (e || !s) return rej(e ?? new Error("no stream"));
              // Listen at once: yauzl may report a lying size before the stream is consumed.
              s.on("error", () => s.destroy());
              res(s);
            }),
          );
          await onFile(safe, count(stream));
        })().then(() => !failed && zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  });
}

async function readTarGz(file: string, admit: Admit, count: Count, onFile: OnFile): Promise<void> {
  let failure: unknown = null;
  let queue = Promise.resolve();
  const parser = new Parser({ strict: true });
  parser.on("entry", (entry: ReadEntry) => {
    queue = queue.then(async () => {
      if (failure) return entry.resume();
      try {
        const safe = admit(entry.path);
        if (entry.type === "SymbolicLink" || entry.type === "Link") throw new ArchiveError(`Links are not allowed in archives: ${entry.path.slice(0, 200)}`);
        if (safe === null || (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "ContiguousFile")) return entry.resume();
        await onFile(safe, count(Readable.from(entry)));
      } catch (err) {
        failure = failure ?? err;
        entry.resume();
      }
    });
  });
  try {
    await pipeline(fs.createReadStream(file), parser);
  } catch (err) {
    failure = failure ?? err;
  }
  await queue;
  if (failure) throw failure instanceof ArchiveError ? failure : new ArchiveError(`Invalid tar archive: ${(failure as Error).message}`);
}
