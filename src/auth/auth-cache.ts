/**
 * Per-process cache of the rows authentication reads on every request (API keys with their owner
 * and role, users with their role and token generation), so an authenticated request
 * costs no database round trip. Correctness comes from invalidation, not from the TTL:
 * - database triggers NOTIFY `workbench_auth` on every change to api_keys, users and roles, whoever
 *   makes it; every process drops the matching entries when the change commits;
 * - while the LISTEN connection is down the cache is off (every lookup goes to the database) and it
 *   starts empty when the connection returns, so a missed notification can never keep a stale entry;
 * - the TTL only bounds memory and is a last safety net.
 */
export const AUTH_CHANNEL = "workbench_auth";
const TTL_MS = 30_000;
const MAX_ENTRIES = 20_000;

/** An API key with what authentication needs of its owner and role. */
export interface CachedKey {
  id: number;
  user_id: number;
  scopes: string[];
  disabled: boolean;
  admin_disabled: boolean;
  expires_at: Date | null;
  last_used_at: Date | null;
  email: string;
  org_id: number;
  role_id: number;
  user_disabled: boolean;
  role_scopes: string[];
  sharing_group_ids: number[];
}

/** A user with their role's scopes. */
export interface CachedUser {
  id: number;
  email: string;
  org_id: number;
  role_id: number;
  disabled: boolean;
  /** Access tokens of another generation are revoked. */
  token_generation: number;
  scopes: string[];
  sharing_group_ids: number[];
}

interface Entry<T> {
  value: T;
  at: number;
}

export class AuthCache {
  private readonly keys = new Map<string, Entry<CachedKey | null>>();
  private readonly users = new Map<number, Entry<CachedUser | null>>();
  private enabled = false;
  /** Bumped by every invalidation: a load that overlapped one is not kept (it may predate the change). */
  private generation = 0;
  private readonly listeners = new Set<() => void>();

  /** Called after every invalidation (e.g. to re-check long-lived connections); returns the unsubscribe. */
  onInvalidate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Called by the pubsub listener: on connect (true) and on connection loss (false). */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.clear();
  }

  clear(): void {
    this.generation++;
    this.keys.clear();
    this.users.clear();
    this.changed();
  }

  /** A `workbench_auth` notification: `<table>:<id>`. */
  invalidate(message: string): void {
    this.generation++;
    const [table, id] = message.split(":", 2);
    if (table === "api_keys") {
      for (const [hash, e] of this.keys) if (e.value?.id === Number(id)) this.keys.delete(hash);
      // A cached miss (unknown hash) stays valid: a change to an existing key never creates a hash.
    } else if (table === "users") {
      this.users.delete(Number(id));
      for (const [hash, e] of this.keys) if (e.value?.user_id === Number(id)) this.keys.delete(hash);
    } else if (table === "roles") {
      // Rare: role changes reach every key and user of the role; start over.
      this.keys.clear();
      this.users.clear();
    } else {
      this.clear();
      return;
    }
    this.changed();
  }

  /**
   * Runs a write that changes an authentication row and drops the row here as soon as it commits.
   * Other processes learn of it from the notification; this one must not wait for its own, or the
   * caller's next request could still see the old row.
   */
  async afterChange<T>(change: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.invalidate(change);
    }
  }

  async key(hash: string, load: () => Promise<CachedKey | null>): Promise<CachedKey | null> {
    return this.cached(this.keys, hash, load);
  }

  async user(id: number, load: () => Promise<CachedUser | null>): Promise<CachedUser | null> {
    return this.cached(this.users, id, load);
  }

  /** Keeps a row fresh after this process changed it itself (the debounced last_used_at). */
  patchKey(hash: string, patch: Partial<CachedKey>): void {
    const e = this.keys.get(hash);
    if (e?.value) e.value = { ...e.value, ...patch };
  }

  private async cached<K, V>(map: Map<K, Entry<V>>, key: K, load: () => Promise<V>): Promise<V> {
    if (!this.enabled) return load();
    const hit = map.get(key);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const started = Date.now();
    const generation = this.generation;
    const value = await load();
    if (this.enabled && generation === this.generation) this.remember(map, key, { value, at: started });
    return value;
  }

  private remember<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, value);
  }
}
