import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * A secret generated at first start and kept in DATA_DIR/<name> (mode 0600): 32 random bytes as 64
 * hex characters. Processes starting at once on one DATA_DIR agree on the first one written: each
 * writes its candidate to a file of its own, then hard-links it to the name, which only one link
 * can take (a `wx` create of the name itself would let a second process read it before it is written).
 * A file that `valid` refuses stops the start: replacing it would silently invalidate what the old
 * secret signed or sealed.
 */
export function dataDirSecret(dataDir: string, name: string, valid: (secret: string) => boolean): string {
  const file = path.join(dataDir, name);
  const existing = readSecret(file);
  if (existing !== null) return checked(file, existing, valid);
  fs.mkdirSync(dataDir, { recursive: true });
  const candidate = `${file}.${process.pid}.${crypto.randomBytes(6).toString("hex")}`;
  const secret = crypto.randomBytes(32).toString("hex");
  try {
    fs.writeFileSync(candidate, secret, { mode: 0o600, flag: "wx" });
    fs.linkSync(candidate, file);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return checked(file, readSecret(file) ?? "", valid);
  } finally {
    fs.rmSync(candidate, { force: true });
  }
}

function readSecret(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function checked(file: string, secret: string, valid: (secret: string) => boolean): string {
  if (!valid(secret)) {
    throw new Error(`${file} does not hold a valid secret: restore the original file, or remove it to generate a new one (what the old one protected will no longer open)`);
  }
  return secret;
}
