import net from "node:net";
import type pg from "pg";
import { errors } from "../platform/errors.ts";
import type { AuditService } from "../modules/audit/index.ts";
import { runtimeSettingOf } from "../modules/settings/index.ts";
import type { RuntimeSettingValue } from "../modules/settings/index.ts";
import type { Principal } from "./principal.ts";

type AuthSettings = RuntimeSettingValue<"auth">;

/** Where a password was checked: the audit entries say so. */
export type PasswordCheck = "login" | "password_change";

/**
 * Throttles password checks per account and per address, in PostgreSQL so every API process shares
 * the count. An attempt is counted before the password is checked (`pending`), so a burst of
 * parallel requests cannot outrun the count; a success gives the address its attempt back and
 * resets the account. Past the free failures each failure locks the key for a doubling time; while
 * locked, answers are 429 without looking at the password, so a right guess then says nothing.
 *
 * Victim lockout: the account's counter only applies to addresses the account has not logged in
 * from lately. From an address it has (`login_known_addresses`) its own counter for that account and
 * address applies, so failures from elsewhere cannot lock its owner out there.
 */
export class LoginThrottle {
  constructor(
    private readonly pool: pg.Pool,
    private readonly audit: AuditService,
  ) {}

  /**
   * Counts an attempt by `actor` (its ip and user agent) on the account `email` (normalised).
   * Throws 429 while the account or address is locked out; otherwise the caller checks the
   * password and reports the outcome on the returned attempt.
   */
  async begin(actor: Principal, email: string, check: PasswordCheck): Promise<LoginAttempt> {
    const address = addressOf(actor.ip);
    const { rows } = await this.pool.query<{ settings: unknown; known_at: Date | null }>(
      `SELECT (SELECT value FROM runtime_settings WHERE namespace = 'auth') AS settings,
              (SELECT max(k.last_success_at) FROM login_known_addresses k JOIN users u ON u.id = k.user_id
                WHERE u.email = $1 AND k.address = $2) AS known_at`,
      [email, address],
    );
    const settings = runtimeSettingOf("auth", rows[0].settings);
    const knownSince = Date.now() - settings.login_known_address_days * 86_400_000;
    const known = address !== null && rows[0].known_at !== null && rows[0].known_at.getTime() > knownSince;
    const keys: Key[] = [];
    if (settings.login_max_failures_per_account > 0) {
      keys.push({ key: known ? `pair:${email}|${address}` : `account:${email}`, free: settings.login_max_failures_per_account, resetBySuccess: true });
    }
    if (address !== null && settings.login_max_failures_per_address > 0) {
      keys.push({ key: `address:${address}`, free: settings.login_max_failures_per_address, resetBySuccess: false });
    }
    const attempt = new LoginAttempt(this.pool, this.audit, actor, email, check, settings, keys, settings.login_known_address_days > 0 ? address : null);
    await attempt.reserve();
    return attempt;
  }
}

interface Key {
  key: string;
  free: number;
  /** A success resets the account's counter; the address only gets its attempt back. */
  resetBySuccess: boolean;
}

/**
 * An attempt's rows ($1), locked in key order before any of them is changed. Every statement that
 * changes several keys takes them in this order (the insert too), or parallel attempts on one
 * account and address deadlock: a scan meets the rows in the order of their latest versions.
 */
const LOCKED_IN_KEY_ORDER =
  "locked AS MATERIALIZED (SELECT key, locked_until, throttle_audited FROM login_throttles WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE)";

/** Counted as failed after the free failures and the window, unless nothing happened for a window. */
const STALE = "GREATEST(t.updated_at, COALESCE(t.locked_until, t.updated_at)) < now() - make_interval(secs => $3)";

export class LoginAttempt {
  private settled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly audit: AuditService,
    private readonly actor: Principal,
    private readonly email: string,
    private readonly check: PasswordCheck,
    private readonly settings: AuthSettings,
    private readonly keys: Key[],
    private readonly knownAddress: string | null,
  ) {}

  /** Counts the attempt as pending on every key, or refuses it (429) if any key is locked out. */
  async reserve(): Promise<void> {
    if (!this.keys.length) return;
    const names = this.keys.map((k) => k.key);
    // A key is refused while locked, or while attempts are in flight and the free failures are used
    // up (counting those in flight as failures): after a lockout exactly one attempt goes through.
    const { rows } = await this.pool.query<{ key: string }>(
      `INSERT INTO login_throttles AS t (key, free_failures, pending, updated_at)
       SELECT key, free, 1, now() FROM unnest($1::text[], $2::int[]) AS x(key, free) ORDER BY key
       ON CONFLICT (key) DO UPDATE SET
         free_failures = excluded.free_failures,
         failures = CASE WHEN ${STALE} THEN 0 ELSE t.failures END,
         pending = CASE WHEN ${STALE} THEN 1 ELSE t.pending + 1 END,
         locked_until = CASE WHEN ${STALE} THEN NULL ELSE t.locked_until END,
         updated_at = now()
       WHERE ${STALE}
          OR NOT (COALESCE(t.locked_until > now(), false) OR (t.pending > 0 AND t.failures + t.pending >= excluded.free_failures))
       RETURNING t.key`,
      [names, this.keys.map((k) => k.free), this.settings.login_failure_window_seconds],
    );
    if (rows.length === names.length) return;
    this.settled = true;
    const counted = rows.map((r) => r.key);
    const refusal = await this.pool.query<{ retry_after: number | null; first: number }>(
      `WITH ${LOCKED_IN_KEY_ORDER}, updated AS (
         UPDATE login_throttles t SET
           pending = CASE WHEN t.key = ANY($2::text[]) THEN GREATEST(t.pending - 1, 0) ELSE t.pending END,
           throttle_audited = t.throttle_audited OR COALESCE(t.locked_until > now(), false)
         FROM locked l WHERE t.key = l.key
       )
       SELECT ceil(extract(epoch FROM max(locked_until) - now()))::int AS retry_after,
              (count(*) FILTER (WHERE locked_until > now() AND NOT throttle_audited))::int AS first
         FROM locked`,
      [names, counted],
    );
    const retryAfter = Math.max(1, refusal.rows[0].retry_after ?? 1);
    // One entry per lockout (its first refusal): refusals cost the caller nothing, so auditing
    // each would let anyone write to the audit log as fast as they can send requests.
    if (refusal.rows[0].first > 0) {
      await this.audit.record(this.actor, {
        action: "auth.login_throttled",
        resourceType: "user",
        resourceId: this.actor.userId,
        metadata: { email: this.email, check: this.check, retry_after: retryAfter },
      });
    }
    throw errors.rateLimited(`Too many failed attempts; try again in ${retryAfter} seconds`, retryAfter);
  }

  /** The password was wrong (or the account unknown or disabled): counts the failure and audits it. */
  async failed(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    if (this.keys.length) {
      await this.pool.query(
        `WITH ${LOCKED_IN_KEY_ORDER}
         UPDATE login_throttles t SET
           pending = GREATEST(t.pending - 1, 0),
           failures = t.failures + 1,
           locked_until = CASE WHEN t.failures + 1 >= t.free_failures
             THEN GREATEST(t.locked_until, now() + make_interval(secs => LEAST($3::float8, $2::float8 * power(2, LEAST(t.failures + 1 - t.free_failures, 30)))))
             ELSE t.locked_until END,
           throttle_audited = t.throttle_audited AND t.failures + 1 < t.free_failures,
           updated_at = now()
         FROM locked l WHERE t.key = l.key`,
        [this.keys.map((k) => k.key), this.settings.login_lockout_base_seconds, this.settings.login_lockout_max_seconds],
      );
    }
    await this.audit.record(this.actor, {
      action: "auth.login_failed",
      resourceType: "user",
      resourceId: this.actor.userId,
      metadata: { email: this.email, check: this.check },
    });
  }

  /** The password was right: resets the account's counter and remembers the address for it. */
  async succeeded(userId: number): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const reset = this.keys.filter((k) => k.resetBySuccess).map((k) => k.key);
    await this.pool.query(
      `WITH ${LOCKED_IN_KEY_ORDER}, reset AS (
         DELETE FROM login_throttles t USING locked l WHERE t.key = l.key AND t.key = ANY($2::text[])
       ), known AS (
         INSERT INTO login_known_addresses AS k (user_id, address, last_success_at)
         SELECT $3::int, $4::text, now() WHERE $4::text IS NOT NULL
         ON CONFLICT (user_id, address) DO UPDATE SET last_success_at = now()
          WHERE k.last_success_at < now() - interval '1 hour'
       )
       UPDATE login_throttles t SET pending = GREATEST(t.pending - 1, 0) FROM locked l WHERE t.key = l.key AND NOT t.key = ANY($2::text[])`,
      [this.keys.map((k) => k.key), reset, userId, this.knownAddress],
    );
  }
}

/** The address a throttle counts: IPv4 as is, IPv6 by its /64 (what one subscriber usually holds). */
export function addressOf(ip: string | null): string | null {
  if (!ip) return null;
  const bare = ip.split("%")[0];
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1];
  if (net.isIPv4(bare)) return bare;
  if (!net.isIPv6(bare)) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])));
  const [head, tail] = bare.split("::");
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return `${all.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}
