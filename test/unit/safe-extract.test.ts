import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ArchiveError, ArchiveLimitError, extractArchive, type ExtractBudget } from "../../src/platform/archives/safe-extract.ts";
import { tarGz, zip } from "../support/archives.ts";

function write(buf: Buffer, name: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wb-extract-")), name);
  fs.writeFileSync(file, buf);
  return file;
}

const MiB = 1024 * 1024;
const roomy: ExtractBudget = { maxEntries: 100, maxTotalBytes: 10 * MiB, maxEntryBytes: 100 * MiB, maxRatio: 1_000_000, ratioFloorBytes: MiB };
/** What the service uses, with a smaller per-member cap. */
const strict: ExtractBudget = { maxEntries: 100, maxTotalBytes: 100 * MiB, maxEntryBytes: 4 * MiB, maxRatio: 100, ratioFloorBytes: MiB };

async function names(file: string, kind: "zip" | "tar.gz", budget: ExtractBudget = roomy, got: { name: string; bytes: number }[] = []) {
  const outcome = await extractArchive(file, kind, budget, async (name, stream) => {
    let bytes = 0;
    got.push({ name, bytes });
    for await (const c of stream) got[got.length - 1].bytes = bytes += (c as Buffer).length;
  });
  return { got, outcome };
}

/** Bytes that deflate about 2:1 (half random, half zeros): far from a bomb's ratio. */
function lowRatio(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 2 * 4096) crypto.randomFillSync(b, i, Math.min(4096, size - i));
  return b;
}

describe("extractArchive bombs", () => {
  it("a zip member past 100:1 is refused from its header before it inflates; the members before it were handed out whole", async () => {
    const bomb = zip([{ name: "manifest.json", data: "{}" }, { name: "big.json", data: Buffer.alloc(16 * MiB), deflate: true }]);
    expect(bomb.length).toBeLessThan(50_000);
    const got: { name: string; bytes: number }[] = [];
    const run = names(write(bomb, "bomb.zip"), "zip", strict, got);
    await expect(run).rejects.toThrow(ArchiveLimitError);
    await expect(run).rejects.toThrow(/big\.json declares 16777216 bytes .* 100 times its compressed size/);
    expect(got).toEqual([{ name: "manifest.json", bytes: 2 }]);
  });

  it("a zip member that lies about its size is stopped at its declared size, so never past the ratio", async () => {
    const liar = zip([{ name: "big.json", data: Buffer.alloc(16 * MiB), deflate: true, declaredSize: 100 }]);
    const got: { name: string; bytes: number }[] = [];
    await expect(names(write(liar, "liar.zip"), "zip", strict, got)).rejects.toThrow(ArchiveError);
    expect(got.reduce((n, g) => n + g.bytes, 0)).toBeLessThanOrEqual(100);
  });

  it("a zip member over the per-member cap is refused even at an ordinary ratio", async () => {
    const big = zip([{ name: "big.json", data: lowRatio(5 * MiB), deflate: true }]);
    await expect(names(write(big, "big.zip"), "zip", strict)).rejects.toThrow(/big\.json declares 5242880 bytes/);
    await expect(names(write(big, "big.zip"), "zip", { ...strict, maxEntryBytes: 6 * MiB })).resolves.toMatchObject({ got: [{ name: "big.json", bytes: 5 * MiB }] });
  });

  it("a tar.gz bomb is refused while inflating, about 1 MiB in, never near its 16 MiB", async () => {
    const bomb = tarGz([{ name: "manifest.json", data: "{}" }, { name: "big.json", data: Buffer.alloc(16 * MiB) }]);
    expect(bomb.length).toBeLessThan(50_000);
    const got: { name: string; bytes: number }[] = [];
    const run = names(write(bomb, "bomb.tar.gz"), "tar.gz", { ...strict, maxEntryBytes: 100 * MiB }, got);
    await expect(run).rejects.toThrow(ArchiveLimitError);
    await expect(run).rejects.toThrow(/expands more than 100 times/);
    expect(got.reduce((n, g) => n + g.bytes, 0)).toBeLessThan(2 * MiB);
  });

  it("a tar.gz member over the per-member cap is refused from its header", async () => {
    const big = tarGz([{ name: "big.json", data: lowRatio(5 * MiB) }]);
    const got: { name: string; bytes: number }[] = [];
    await expect(names(write(big, "big.tar.gz"), "tar.gz", strict, got)).rejects.toThrow(/big\.json declares 5242880 bytes \(at most 4194304\)/);
    expect(got).toEqual([]);
    await expect(names(write(big, "big.tar.gz"), "tar.gz", { ...strict, maxEntryBytes: 6 * MiB })).resolves.toMatchObject({ got: [{ name: "big.json", bytes: 5 * MiB }] });
  });
});

describe("extractArchive", () => {
  it("a zip bomb (64 MB of zeros in a few KB) stops at the byte budget, counted while inflating", async () => {
    const bomb = zip([{ name: "manifest.json", data: Buffer.alloc(64 * 1024 * 1024), deflate: true }]);
    expect(bomb.length).toBeLessThan(200_000);
    await expect(names(write(bomb, "bomb.zip"), "zip")).rejects.toThrow(ArchiveError);
    await expect(names(write(bomb, "bomb.zip"), "zip")).rejects.toThrow(/more than 10485760 bytes/);
  });

  it("too many entries stop at the entry budget", async () => {
    const many = zip(Array.from({ length: 150 }, (_, i) => ({ name: `${i}.json`, data: "{}" })));
    await expect(names(write(many, "many.zip"), "zip")).rejects.toThrow(/more than 100 entries/);
    const manyTar = tarGz(Array.from({ length: 150 }, (_, i) => ({ name: `${i}.json`, data: "{}" })));
    await expect(names(write(manyTar, "many.tar.gz"), "tar.gz")).rejects.toThrow(/more than 100 entries/);
  });

  it("hands out safe names only, normalised; reports the unsafe ones", async () => {
    const tar = tarGz([
      { name: "./manifest.json", data: "{}" },
      { name: "dir/", type: "5" },
      { name: "dir/a.json", data: "{}" },
      { name: "../up.json", data: "{}" },
      { name: "/abs.json", data: "{}" },
    ]);
    const { got, outcome } = await names(write(tar, "t.tar.gz"), "tar.gz");
    expect(got.map((g) => g.name)).toEqual(["manifest.json", "dir/a.json"]);
    expect(outcome.unsafe).toEqual(["../up.json", "/abs.json"]);
  });
});
