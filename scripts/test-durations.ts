// Refreshes test/durations.json (the order test/support/sequencer.ts gives CI) from vitest's cache of
// the files' last passing runs, hooks included: run the whole suite (`npm test`) first, on a quiet machine.
import fs from "node:fs";
import path from "node:path";
import { DURATIONS_FILE } from "../test/support/sequencer.ts";

const root = path.resolve(import.meta.dirname, "..");
const cacheRoot = path.join(root, "node_modules/.vite/vitest");
const seconds: Record<string, number> = JSON.parse(fs.readFileSync(DURATIONS_FILE, "utf8"));
for (const dir of fs.existsSync(cacheRoot) ? fs.readdirSync(cacheRoot) : []) {
  const file = path.join(cacheRoot, dir, "results.json");
  if (!fs.existsSync(file)) continue;
  const { results } = JSON.parse(fs.readFileSync(file, "utf8")) as { results: [string, { duration: number; failed: boolean }][] };
  for (const [key, result] of results) if (!result.failed) seconds[key.slice(key.indexOf(":") + 1)] = Math.round(result.duration / 100) / 10;
}
const kept = Object.keys(seconds)
  .filter((name) => fs.existsSync(path.join(root, name)))
  .sort();
fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(kept.map((name) => [name, seconds[name]])), null, 1)}\n`);
console.log(`wrote ${DURATIONS_FILE}: ${kept.length} files`);
