import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The real public data beside the repository (`../shared/data`); tests read it in place. */
export const SHARED_DATA = process.env.SHARED_DATA_DIR ?? path.resolve(fileURLToPath(new URL("../../", import.meta.url)), "../shared/data");

export const sharedPath = (...parts: string[]) => path.join(SHARED_DATA, ...parts);

/**
 * Temporary copies of two taxonomies and two warninglists of the shared data, for tests whose update
 * routes only need to succeed: importing the whole sources takes seconds per call. `remove()` when done.
 */
export function smallSources(): { env: { TAXONOMIES_SOURCE: string; WARNINGLISTS_SOURCE: string }; remove(): void } {
  const copy = (source: string, entries: string[]) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wb-${source}-`));
    for (const entry of entries) fs.cpSync(sharedPath(source, entry), path.join(dir, entry), { recursive: true });
    return dir;
  };
  const env = {
    TAXONOMIES_SOURCE: copy("misp-taxonomies", ["PAP", "access-method"]),
    WARNINGLISTS_SOURCE: copy("misp-warninglists", ["lists/apple", "lists/alphastrike-scanning"]),
  };
  return { env, remove: () => Object.values(env).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })) };
}
