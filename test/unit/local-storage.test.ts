/**
 * Local storage: a write that fails leaves nothing behind, also when its body fails before the
 * temporary file is even open (a truncated upload answered while the file was being created).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { LocalStorage } from "../../src/platform/storage/local-storage.ts";
import { StorageLimitError } from "../../src/platform/storage/storage.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "wb-local-storage-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("LocalStorage.put", () => {
  it("a body that fails at once leaves no partial file, however many times it happens", async () => {
    const storage = new LocalStorage(root);
    for (let i = 0; i < 200; i++) {
      const body = new Readable({ read() { this.destroy(new Error("client went away")); } });
      await expect(storage.put(`a/failing-${i}`, body)).rejects.toThrow("client went away");
    }
    expect(fs.readdirSync(path.join(root, "a"))).toEqual([]);
  });

  it("a body over the limit is refused and leaves nothing", async () => {
    const storage = new LocalStorage(root);
    await expect(storage.put("b/big", Readable.from([Buffer.alloc(2048)]), { maxBytes: 1024 })).rejects.toBeInstanceOf(StorageLimitError);
    expect(fs.readdirSync(path.join(root, "b"))).toEqual([]);
    expect(await storage.put("b/small", Readable.from([Buffer.alloc(10)]))).toBe(10);
    expect(fs.readdirSync(path.join(root, "b"))).toEqual(["small"]);
  });
});
