import fs from "node:fs";
import path from "node:path";

/** Every file under a test service's local storage (`DATA_DIR/storage`), relative to it, sorted. */
export function storedFiles(dataDir: string): string[] {
  const root = path.join(dataDir, "storage");
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else out.push(path.relative(root, path.join(d, e.name)));
    }
  };
  walk(root);
  return out.sort();
}
