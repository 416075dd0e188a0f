import fs from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { AppError, errors } from "./errors.ts";

/**
 * Reading a knowledge source (GALAXY_SOURCE, TAXONOMIES_SOURCE): a local directory or an http(s)
 * base URL of JSON files, read with a size cap per file and in total, a timeout per request, paths
 * that stay inside the directory, and JSON that PostgreSQL can store. Hostile or broken sources
 * give a 400 (the files) or 503 (the source), never a 500; messages name files, never the URL (it
 * may carry credentials).
 */
export interface SourceLimits {
  /** The setting's name, for messages ("GALAXY_SOURCE"). */
  setting: string;
  /** The source as messages about its answers name it ("Galaxy source"). */
  source: string;
  maxFileBytes: number;
  maxTotalBytes: number;
  timeoutMs: number;
}

export const isUrlSource = (source: string) => /^https?:\/\//i.test(source);

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A file or directory name a source may use: plain, no traversal. */
export const isSafeSourceName = (name: string) => SAFE_NAME.test(name) && !name.includes("..");

/** Whether the resolved path `p` is `root` or inside it. */
export const isInside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

export class SourceReader {
  private left: number;

  constructor(private readonly limits: SourceLimits) {
    this.left = limits.maxTotalBytes;
  }

  /** A file under `root` (resolved, symbolic links included, and kept inside it). */
  async readInside(root: string, rel: string): Promise<string> {
    const { setting, maxFileBytes } = this.limits;
    let real: string;
    try {
      real = await fs.realpath(path.join(root, rel));
    } catch {
      throw errors.badRequest(`${rel} is missing`);
    }
    if (!isInside(root, real)) throw errors.badRequest(`${rel} resolves outside ${setting}`);
    const st = await fs.stat(real);
    if (!st.isFile()) throw errors.badRequest(`${rel} is not a file`);
    if (st.size > maxFileBytes) throw errors.badRequest(`${rel} is larger than ${maxFileBytes} bytes`);
    this.spend(st.size);
    return fs.readFile(real, "utf8");
  }

  /** GET with a timeout and a size cap; `null` for 404. */
  async fetchText(url: string, what: string): Promise<string | null> {
    const { source, maxFileBytes, timeoutMs } = this.limits;
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" }, redirect: "follow" });
    } catch (err) {
      throw errors.unavailable(`${source} unreachable for ${what}: ${this.failure(err)}`);
    }
    if (res.status === 404 || !res.ok) {
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 404) return null;
      throw errors.unavailable(`${source} answered HTTP ${res.status} for ${what}`);
    }
    if (Number(res.headers.get("content-length") ?? "NaN") > maxFileBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw errors.badRequest(`${what} is larger than ${maxFileBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      const reader = res.body?.getReader();
      for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
        size += r.value.byteLength;
        if (size > maxFileBytes) {
          await reader!.cancel().catch(() => undefined);
          throw errors.badRequest(`${what} is larger than ${maxFileBytes} bytes`);
        }
        chunks.push(r.value);
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw errors.unavailable(`${source} failed while sending ${what}: ${this.failure(err)}`);
    }
    this.spend(size);
    return Buffer.concat(chunks).toString("utf8");
  }

  private spend(bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) throw errors.badRequest(`${this.limits.setting} is larger than ${this.limits.maxTotalBytes} bytes in total`);
  }

  private failure(err: unknown): string {
    if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${this.limits.timeoutMs / 1000} s`;
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code ?? (err instanceof Error ? err.message.slice(0, 200) : "request failed");
  }
}

/** A source file's JSON checked with `schema`: a 400 naming the file (`where`) and its first problems otherwise. */
export function parseSourceJson<T>(schema: z.ZodType<T>, text: string, where: string, kind: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text, storable);
  } catch (err) {
    if (err instanceof NulCharacter) throw errors.badRequest(`${where} contains NUL characters`);
    throw errors.badRequest(`${where} is not valid JSON`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw errors.badRequest(`${where} is not a valid ${kind}: ${issues.join("; ")}`);
  }
  return result.data;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

class NulCharacter extends Error {}

/**
 * PostgreSQL stores neither NUL characters (text, jsonb) nor lone surrogates (jsonb): refuse the
 * first as unusable input and replace the second.
 */
function storable(key: string, value: unknown): unknown {
  if (key.includes("\u0000")) throw new NulCharacter();
  if (typeof value !== "string") return value;
  if (value.includes("\u0000")) throw new NulCharacter();
  return LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, "\uFFFD") : value;
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(workers);
  return out;
}
