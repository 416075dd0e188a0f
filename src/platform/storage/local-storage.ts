import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { byteLimit } from "../byte-limit.ts";
import { pipeline } from "node:stream/promises";
import { checkKey, StorageLimitError, StorageNotFoundError, type Storage } from "./storage.ts";

/** Files under one directory; a write goes to a temporary name and is renamed into place when complete. */
export class LocalStorage implements Storage {
  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...checkKey(key).split("/"));
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<number> {
    const target = this.pathOf(key);
    // The body may fail while the directory is made; pipeline() below still sees that error.
    body.on("error", () => undefined);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.part-${crypto.randomBytes(6).toString("hex")}`;
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    const tally = { bytes: 0 };
    const out = fs.createWriteStream(partial, { flags: "wx" });
    try {
      await pipeline(body, byteLimit(max, () => new StorageLimitError(max), tally), out);
      await fs.promises.rename(partial, target);
      return tally.bytes;
    } catch (err) {
      // A body that fails at once can beat the file's open: removed before the open, it would stay behind.
      if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
      await fs.promises.rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    const p = this.pathOf(key);
    try {
      const handle = await fs.promises.open(p, "r");
      return handle.createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EISDIR") throw new StorageNotFoundError(key);
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const st = await fs.promises.stat(this.pathOf(key));
      return st.isFile() ? st.size : null;
    } catch {
      return null;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.pathOf(prefix);
    const out: string[] = [];
    const walk = async (d: string, rel: string) => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (e.name.includes(".part-")) continue;
        if (e.isDirectory()) await walk(path.join(d, e.name), `${rel}/${e.name}`);
        else if (e.isFile()) out.push(`${rel}/${e.name}`);
      }
    };
    await walk(dir, prefix);
    return out.sort();
  }

  async children(prefix: string): Promise<string[]> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(this.pathOf(prefix), { withFileTypes: true });
    } catch {
      return [];
    }
    return entries
      .filter((e) => !e.name.includes(".part-") && (e.isFile() || e.isDirectory()))
      .map((e) => `${prefix}/${e.name}`)
      .sort();
  }

  async deleteTree(key: string): Promise<void> {
    const p = this.pathOf(key);
    await fs.promises.rm(p, { force: true, recursive: true });
  }
}
