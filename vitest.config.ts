import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/support/sequencer.ts";

const require = createRequire(import.meta.url);

export default defineConfig({
  // Node loads graphql's CommonJS entry for dependencies (Yoga, Pothos); Vite would pick the .mjs
  // one for our sources. Two copies of graphql break instanceof checks, so both get the same file.
  resolve: { alias: { graphql: require.resolve("graphql") } },
  test: {
    include: ["test/**/*.test.ts", "test/web/**/*.test.tsx"],
    // Integration tests each create their own database; files run in parallel on the two cores.
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/per-file.ts"],
    // A worker runs file after file in one module graph: isolated, each file paid a new process and
    // the import of the whole service again (seconds per file, ~160 files). Files share only modules;
    // what a file starts it closes, and per-file hooks live in test/support/per-file.ts.
    isolate: false,
  },
});
