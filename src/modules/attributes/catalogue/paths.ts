/**
 * Filesystem locations used by the attribute catalogue.
 *
 * - The service loads the *vendored* copy of MISP's describeTypes.json that sits
 *   next to this file (so it runs where `../shared` is absent).
 * - The sync script and the tests locate the *shared* copy: `<repo>/../shared/data`
 *   (the data folder beside the repository), overridable with `SHARED_DATA_DIR`.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The describeTypes.json copy the service loads by default (vendored, in this folder). */
export const VENDORED_DESCRIBE_TYPES_PATH = join(HERE, 'describeTypes.json');

/** Walk up from this module to the first directory holding a package.json. */
export function repoRoot(): string {
  let dir = HERE;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`attribute catalogue: no package.json found above ${HERE}`);
    }
    dir = parent;
  }
}

/** `$SHARED_DATA_DIR` if set, else `<repo root>/../shared/data`. */
export function sharedDataDir(): string {
  const override = process.env.SHARED_DATA_DIR;
  if (override !== undefined && override.trim() !== '') return resolve(override);
  return resolve(repoRoot(), '..', 'shared', 'data');
}

/** The upstream (shared) describeTypes.json the vendored copy is synced from. */
export function sharedDescribeTypesPath(): string {
  return join(sharedDataDir(), 'misp', 'describeTypes.json');
}
