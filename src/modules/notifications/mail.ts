import type { Sql } from "../../platform/db/transaction.ts";
import { EMAIL_DIGEST_TASK, SEND_EMAIL_TASK } from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";
import { readRuntimeSetting } from "../settings/index.ts";

/** A send is retried with graphile-worker's backoff (about 1 h in all), then the mail is failed. */
export const SEND_EMAIL_ATTEMPTS = 10;

export interface NewNotification {
  id: number;
  user_id: number;
  type: string;
  payload: Record<string, unknown>;
}

/** Subject labels of the peer (notes 5.2): the first matching prefix decides. */
const LABELS: [string, string][] = [
  ["hunt.", "Hunt Results"],
  ["attribute.sighting.", "New Sighting"],
  ["attribute.correlation.", "New Correlation"],
  ["attribute.", "Attribute Update"],
  ["event.attribute.", "Attribute Update"],
  ["event.object.", "Object Update"],
  ["object.", "Object Update"],
  ["organisation.event.", "Event Update from Followed Organisation"],
  ["event.", "Event Update"],
];

export function mailSubject(type: string): string {
  return `[workbench] ${LABELS.find(([prefix]) => type.startsWith(prefix))?.[1] ?? "New Notification"}`;
}

/** `Notification type: <type>`, a blank line, `  key: value` per payload entry, and a link to the entity. */
export function mailBody(type: string, payload: Record<string, unknown>, publicUrl: string): string {
  const lines = [`Notification type: ${type}`, "", ...Object.entries(payload).map(([k, v]) => `  ${k}: ${v === null ? "" : String(v)}`)];
  const link = linkOf(payload, publicUrl);
  if (link) lines.push("", link);
  return `${lines.join("\n")}\n`;
}

function linkOf(p: Record<string, unknown>, base: string): string | null {
  const at = (k: string) => (typeof p[k] === "string" && p[k] !== "" ? (p[k] as string) : null);
  if (at("attribute_uuid")) return `${base}/attributes/${at("attribute_uuid")}`;
  if (at("object_uuid")) return `${base}/objects/${at("object_uuid")}`;
  if (at("source_attribute_uuid")) return `${base}/attributes/${at("source_attribute_uuid")}`;
  if (at("event_uuid")) return `${base}/events/${at("event_uuid")}`;
  if (typeof p.hunt_id === "number") return `${base}/hunts/${p.hunt_id}`;
  return null;
}

/**
 * Queues the e-mails of new notifications, in the notifier's transaction: for each recipient with an
 * address and `email_notifications` on, under an advisory lock per user (workers share one count),
 * a mail is queued while fewer than `email_max_per_hour` were queued or sent in the last hour (0: no
 * limit); over it the mail is recorded as throttled and a digest job is set for when the window allows.
 */
export async function queueEmails(sql: Sql, notifications: NewNotification[], publicUrl: string): Promise<void> {
  if (notifications.length === 0) return;
  const userIds = [...new Set(notifications.map((n) => n.user_id))];
  const { rows: users } = await sql.query<{ id: number; email: string; wants: boolean }>(
    `SELECT u.id, u.email, COALESCE((s.value->>'email_notifications')::boolean, true) AS wants
       FROM users u LEFT JOIN user_settings s ON s.user_id = u.id AND s.namespace = 'notifications'
      WHERE u.id = ANY($1::int[]) AND NOT u.disabled AND u.email <> ''`,
    [userIds],
  );
  const cap = (await readRuntimeSetting(sql, "notifications")).email_max_per_hour;
  for (const u of users.filter((x) => x.wants).sort((a, b) => a.id - b.id)) {
    await sql.query("SELECT pg_advisory_xact_lock(hashtext('notification_email'), $1)", [u.id]);
    let used = (
      await sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM notification_emails WHERE user_id = $1 AND status IN ('queued', 'sent') AND created_at > now() - interval '1 hour'",
        [u.id],
      )
    ).rows[0].n;
    for (const n of notifications.filter((x) => x.user_id === u.id)) {
      const throttled = cap > 0 && used >= cap;
      const { rows } = await sql.query<{ id: number }>(
        `INSERT INTO notification_emails (user_id, notification_id, to_address, subject, body, status) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [u.id, n.id, u.email, mailSubject(n.type), mailBody(n.type, n.payload, publicUrl), throttled ? "throttled" : "queued"],
      );
      if (throttled) {
        await scheduleDigest(sql, u.id);
      } else {
        used++;
        await enqueueJob(sql, SEND_EMAIL_TASK, { email_id: rows[0].id }, { maxAttempts: SEND_EMAIL_ATTEMPTS, jobKey: `${SEND_EMAIL_TASK}:${rows[0].id}` });
      }
    }
  }
}

/** The digest runs when the oldest mail counted in the window leaves it (one pending job per user). */
export async function scheduleDigest(sql: Sql, userId: number): Promise<void> {
  // Rounded up to the millisecond (a Date holds no microseconds): a digest run a moment early would
  // still count the oldest mail and only wait again.
  const { rows } = await sql.query<{ at: Date }>(
    `SELECT date_trunc('milliseconds', t + interval '999 microseconds') AS at
       FROM COALESCE((SELECT min(created_at) + interval '1 hour' FROM notification_emails
                       WHERE user_id = $1 AND status IN ('queued', 'sent') AND created_at > now() - interval '1 hour'), now()) AS t`,
    [userId],
  );
  await enqueueJob(sql, EMAIL_DIGEST_TASK, { user_id: userId }, { jobKey: `${EMAIL_DIGEST_TASK}:${userId}`, jobKeyMode: "preserve_run_at", runAt: rows[0].at });
}
