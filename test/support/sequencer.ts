import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds per test file, measured on a full run (refresh with `npx tsx scripts/test-durations.ts`). */
export const DURATIONS_FILE = path.resolve(import.meta.dirname, "../durations.json");

/**
 * Longest file first. The two workers take files in this order, so the last files to start are
 * short ones and both workers finish close together. Vitest's own order needs its local cache of
 * an earlier run; CI's fresh clone has none, and vitest then goes by file size, which left a
 * 100-second file to start last. A file not in the list (new) goes first: it may be long.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(fs.readFileSync(DURATIONS_FILE, "utf8")) as Record<string, number>;
    const root = this.ctx.config.root;
    const weight = (spec: TestSpecification) => seconds[path.relative(root, spec.moduleId).split(path.sep).join("/")] ?? Number.MAX_SAFE_INTEGER;
    return [...files].sort((a, b) => weight(b) - weight(a));
  }
}
