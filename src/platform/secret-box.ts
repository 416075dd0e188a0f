import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Credentials stored for the service's own use (a sync server's API key): AES-256-GCM with a random
 * 96-bit nonce per value, the purpose bound as associated data so a value copied into another
 * column does not open. Stored as `v1:<base64 nonce|tag|ciphertext>`.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("a secret box needs a 32-byte key");
  }

  seal(plain: string, purpose: string): string {
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `v1:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  /** Throws when the value was sealed with another key or purpose, or was altered. */
  open(sealed: string, purpose: string): string {
    if (!sealed.startsWith("v1:")) throw new Error("not a sealed value");
    const raw = Buffer.from(sealed.slice(3), "base64");
    const decipher = crypto.createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

const boxes = new Map<string, SecretBox>();

/** SECRETS_KEY, or a key generated at first start and kept in DATA_DIR/secrets-key (mode 0600). */
export function secretBox(configured: string | undefined, dataDir: string): SecretBox {
  const cacheKey = configured ?? `dir:${dataDir}`;
  let box = boxes.get(cacheKey);
  if (!box) boxes.set(cacheKey, (box = new SecretBox(Buffer.from(configured ?? keyInDataDir(dataDir), "hex"))));
  return box;
}

function keyInDataDir(dataDir: string): string {
  const file = path.join(dataDir, "secrets-key");
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{64}$/i.test(existing)) return existing;
  } catch {
    /* first start */
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = crypto.randomBytes(32).toString("hex");
  // wx: two processes starting at once on one DATA_DIR keep the first one's key.
  try {
    fs.writeFileSync(file, key, { mode: 0o600, flag: "wx" });
    return key;
  } catch {
    return fs.readFileSync(file, "utf8").trim();
  }
}
