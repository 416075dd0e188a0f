/**
 * Copy MISP's describeTypes.json from the shared data folder into the vendored
 * copy next to the catalogue (byte-for-byte), so the service can run where
 * `../shared` is absent.
 *
 *   npx tsx src/modules/attributes/catalogue/sync-describe-types.ts           # copy
 *   npx tsx src/modules/attributes/catalogue/sync-describe-types.ts --check   # exit 1 on drift
 *
 * The source folder honours `SHARED_DATA_DIR` (see paths.ts).
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { VENDORED_DESCRIBE_TYPES_PATH, sharedDescribeTypesPath } from './paths.ts';

export interface SyncResult {
  source: string;
  target: string;
  /** true when the vendored copy already matched the source */
  upToDate: boolean;
}

function sameBytes(a: string, b: string): boolean {
  return existsSync(b) && readFileSync(a).equals(readFileSync(b));
}

/** Copy (or, with `check`, only compare) the shared describeTypes.json into the vendored copy. */
export function syncDescribeTypes(options: { check?: boolean; source?: string } = {}): SyncResult {
  const source = options.source ?? sharedDescribeTypesPath();
  const target = VENDORED_DESCRIBE_TYPES_PATH;
  if (!existsSync(source)) throw new Error(`describeTypes.json not found at ${source}`);
  // Refuse to vendor something that is not the expected document.
  const parsed: unknown = JSON.parse(readFileSync(source, 'utf8'));
  const result = (parsed as { result?: { types?: unknown } } | null)?.result;
  if (!result || !Array.isArray(result.types)) {
    throw new Error(`${source} does not look like MISP describeTypes.json (no result.types)`);
  }
  const upToDate = sameBytes(source, target);
  if (!upToDate && !options.check) copyFileSync(source, target);
  return { source, target, upToDate };
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (invokedDirectly) {
  const check = process.argv.includes('--check');
  try {
    const r = syncDescribeTypes({ check });
    if (r.upToDate) process.stdout.write(`describeTypes.json up to date (${r.target})\n`);
    else if (check) {
      console.error(`describeTypes.json drifted: ${r.target} differs from ${r.source}`);
      process.exitCode = 1;
    } else process.stdout.write(`copied ${r.source} -> ${r.target}\n`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
