import fs from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import yauzl from "yauzl";
import { byteLimit } from "../byte-limit.ts";

export type ArchiveKind = "zip" | "tar.gz";

export interface ExtractBudget {
  maxEntries: number;
  /** Uncompressed bytes of all the files handed out, counted as they stream (not trusted from headers). */
  maxTotalBytes: number;
  /** Uncompressed bytes of one member. */
  maxEntryBytes: number;
  /**
   * Past `ratioFloorBytes` uncompressed, at most `maxRatio` times the compressed bytes: a zip
   * member against its own compressed size, a tar.gz (whose members are not compressed one by
   * one) as the whole gzip stream read so far.
   */
  maxRatio: number;
  ratioFloorBytes: number;
}

/** A problem with the archive itself (the caller answers 400 with the message). */
export class ArchiveError extends Error {}

/** The archive is (or expands to) more than the budget allows: a bomb, or simply too big (413). */
export class ArchiveLimitError extends ArchiveError {}

export interface ExtractOutcome {
  entries: number;
  /** Entries dropped for an unsafe path (`../`, absolute, backslashes, drive letters). */
  unsafe: string[];
}

/**
 * Reads a zip or tar.gz file entry by entry and hands each regular file with a safe relative path
 * to `onFile` as a stream (which the callback must consume). Links are refused (the archive is
 * rejected); unsafe paths are dropped; directories and other entry kinds are skipped. Entry count,
 * member size, compression ratio and total uncompressed bytes are budgeted while inflating (sizes
 * declared in headers are checked first, then the real bytes are counted), and zip entries whose
 * real size differs from their header fail. Nothing is ever written by this module: where members
 * go is the callback's business, and a failed stream makes it throw.
 */
export async function extractArchive(
  file: string,
  kind: ArchiveKind,
  budget: ExtractBudget,
  onFile: (name: string, stream: Readable) => Promise<void>,
): Promise<ExtractOutcome> {
  const state = { entries: 0, bytes: 0, unsafe: [] as string[] };
  /** `memberCap`: the bytes this member may expand to (its size cap, or less for a zip member's ratio). */
  const counted = (stream: Readable, name: string, memberCap: number): Readable => {
    const total = byteLimit(budget.maxTotalBytes, () => new ArchiveLimitError(`the archive expands to more than ${budget.maxTotalBytes} bytes`), state);
    const member = byteLimit(memberCap, () => new ArchiveLimitError(`member ${name.slice(0, 200)} expands to more than ${memberCap} bytes (at most ${budget.maxEntryBytes}, and ${budget.maxRatio} times its compressed size)`));
    stream.on("error", (err) => member.destroy(err));
    member.on("error", (err) => total.destroy(err));
    // An entry stream can fail before it is handed out (yauzl checks sizes as it inflates).
    if (stream.errored) member.destroy(stream.errored);
    return stream.pipe(member).pipe(total);
  };
  const admit = (name: string): string | null => {
    state.entries++;
    if (state.entries > budget.maxEntries) throw new ArchiveLimitError(`the archive has more than ${budget.maxEntries} entries`);
    const safe = safeName(name);
    if (safe === null) state.unsafe.push(name.slice(0, 200));
    return safe;
  };
  if (kind === "zip") await readZip(file, budget, admit, counted, onFile);
  else await readTarGz(file, budget, admit, counted, onFile);
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
type Count = (s: Readable, name: string, memberCap: number) => Readable;
type OnFile = (name: string, stream: Readable) => Promise<void>;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** What a zip member may expand to: its size cap, and past the floor `maxRatio` times its compressed size. */
function zipMemberCap(entry: yauzl.Entry, budget: ExtractBudget): number {
  return Math.min(budget.maxEntryBytes, Math.max(budget.ratioFloorBytes, budget.maxRatio * entry.compressedSize));
}

function readZip(file: string, budget: ExtractBudget, admit: Admit, count: Count, onFile: OnFile): Promise<void> {
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
          const cap = zipMemberCap(entry, budget);
          // Refused from its header before anything inflates (yauzl then holds the member to that size).
          if (entry.uncompressedSize > cap) throw new ArchiveLimitError(`member ${name.slice(0, 200)} declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} compressed (at most ${budget.maxEntryBytes}, and ${budget.maxRatio} times its compressed size)`);
          const stream = await new Promise<Readable>((res, rej) =>
            zip.openReadStream(entry, (e, s) => {
              if (e || !s) return rej(e ?? new Error("no stream"));
              // Listen at once: yauzl may report a lying size before the stream is consumed.
              s.on("error", () => s.destroy());
              res(s);
            }),
          );
          await onFile(safe, count(stream, safe, cap));
        })().then(() => !failed && zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  });
}

/**
 * Counts the compressed bytes going into gunzip and refuses once what comes out passes the floor
 * and `maxRatio` times what went in (small reads, so the count never runs far ahead).
 */
function gunzipWithRatio(budget: ExtractBudget): [Transform, zlib.Gunzip, Transform] {
  let compressed = 0;
  let inflated = 0;
  const input = new Transform({
    transform(chunk: Buffer, _e, done) {
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  const output = new Transform({
    transform(chunk: Buffer, _e, done) {
      inflated += chunk.length;
      const bomb = inflated > budget.ratioFloorBytes && inflated > budget.maxRatio * compressed;
      done(bomb ? new ArchiveLimitError(`the archive expands more than ${budget.maxRatio} times (${inflated} bytes from ${compressed})`) : null, chunk);
    },
  });
  return [input, zlib.createGunzip(), output];
}

async function readTarGz(file: string, budget: ExtractBudget, admit: Admit, count: Count, onFile: OnFile): Promise<void> {
  let failure: unknown = null;
  let queue = Promise.resolve();
  // The member being handed out: when the stream under it fails, its reader must hear of it.
  const active: { stream: Readable | null } = { stream: null };
  const parser = new Parser({ strict: true });
  parser.on("entry", (entry: ReadEntry) => {
    queue = queue.then(async () => {
      if (failure) return entry.resume();
      try {
        const safe = admit(entry.path);
        if (entry.type === "SymbolicLink" || entry.type === "Link") throw new ArchiveError(`Links are not allowed in archives: ${entry.path.slice(0, 200)}`);
        if (safe === null || (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "ContiguousFile")) return entry.resume();
        if (entry.size > budget.maxEntryBytes) throw new ArchiveLimitError(`member ${safe.slice(0, 200)} declares ${entry.size} bytes (at most ${budget.maxEntryBytes})`);
        const stream = count(Readable.from(entry), safe, budget.maxEntryBytes);
        active.stream = stream;
        if (failure) stream.destroy(failure as Error);
        await onFile(safe, stream);
      } catch (err) {
        failure = failure ?? err;
        entry.resume();
      } finally {
        active.stream = null;
      }
    });
  });
  try {
    const [compressed, gunzip, inflated] = gunzipWithRatio(budget);
    await pipeline(fs.createReadStream(file, { highWaterMark: 16 * 1024 }), compressed, gunzip, inflated, parser);
  } catch (err) {
    failure = failure ?? err;
    active.stream?.destroy(failure as Error);
  }
  await queue;
  if (failure) throw failure instanceof ArchiveError ? failure : new ArchiveError(`Invalid tar archive: ${(failure as Error).message}`);
}
