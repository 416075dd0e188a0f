import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ArchiveError, extractArchive } from "../../src/platform/archives/safe-extract.ts";
import { tarGz, zip } from "../support/archives.ts";

function write(buf: Buffer, name: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wb-extract-")), name);
  fs.writeFileSync(file, buf);
  return file;
}

async function names(file: string, kind: "zip" | "tar.gz", budget = { maxEntries: 100, maxTotalBytes: 10 * 1024 * 1024 }) {
  const got: { name: string; bytes: number }[] = [];
  const outcome = await extractArchive(file, kind, budget, async (name, stream) => {
    let bytes = 0;
    for await (const c of stream) bytes += (c as Buffer).length;
    got.push({ name, bytes });
  });
  return { got, outcome };
}

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
