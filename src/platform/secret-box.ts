import crypto from "node:crypto";
import { dataDirSecret } from "./data-dir-secret.ts";

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

const isKey = (text: string) => /^[0-9a-f]{64}$/i.test(text);

const boxes = new Map<string, SecretBox>();

/** SECRETS_KEY, or a key generated at first start and kept in DATA_DIR/secrets-key (mode 0600). */
export function secretBox(configured: string | undefined, dataDir: string): SecretBox {
  const cacheKey = configured ?? `dir:${dataDir}`;
  let box = boxes.get(cacheKey);
  if (!box) boxes.set(cacheKey, (box = new SecretBox(Buffer.from(configured ?? dataDirSecret(dataDir, "secrets-key", isKey), "hex"))));
  return box;
}
