import crypto from "node:crypto";
import type pg from "pg";

/**
 * The uuids of a feed's event and of the values it ingests are derived (so a value fetched again is
 * recognised, and two runs at once write it once), as uuidv5 under a namespace taken from a secret
 * of this instance: nobody outside can compute the uuid a feed will give a value and take it first.
 * The secret is generated once in the database, so every API and worker process of the instance
 * shares it without a shared DATA_DIR.
 */
export interface FeedUuids {
  derive(name: string): string;
  /** The unkeyed derivation used before the secret existed: only matched inside a feed's own event. */
  legacy(name: string): string;
}

const SECRET = "feed_uuid_namespace";
const cache = new WeakMap<pg.Pool, Promise<FeedUuids>>();

export function feedUuids(pool: pg.Pool): Promise<FeedUuids> {
  let uuids = cache.get(pool);
  if (!uuids) {
    uuids = load(pool);
    cache.set(pool, uuids);
    uuids.catch(() => cache.delete(pool));
  }
  return uuids;
}

async function load(pool: pg.Pool): Promise<FeedUuids> {
  await pool.query("INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [SECRET, crypto.randomBytes(32).toString("hex")]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM instance_secrets WHERE name = $1", [SECRET]);
  const namespace = crypto.createHmac("sha256", rows[0].value).update("workbench feed uuids").digest().subarray(0, 16);
  return {
    derive: (name) => uuidV5(namespace, name),
    legacy: (name) => format(crypto.createHash("sha1").update(`workbench-feeds:${name}`).digest()),
  };
}

/** RFC 9562 version 5: SHA-1 of the namespace's 16 bytes and the name. */
function uuidV5(namespace: Buffer, name: string): string {
  return format(crypto.createHash("sha1").update(namespace).update(name, "utf8").digest());
}

function format(hash: Buffer): string {
  const h = Buffer.from(hash.subarray(0, 16));
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
