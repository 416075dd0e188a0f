import nodemailer from "nodemailer";
import type { Task } from "graphile-worker";
import type { AppContext } from "../../app-context.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { readRuntimeSetting } from "../../modules/settings/index.ts";
import { SEND_EMAIL_TASK } from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";
import { SEND_EMAIL_ATTEMPTS, scheduleDigest } from "../../modules/notifications/index.ts";

/**
 * Sends one queued mail through SMTP_URL (skipped, and recorded so, without it). A failure is kept in
 * `last_error` and retried with graphile-worker's backoff; after the last attempt the mail is failed.
 */
export function sendEmailTask(ctx: AppContext): Task {
  // A small pool of kept-open SMTP connections (a connection per mail caps throughput at a few dozen/s).
  const transport = ctx.config.SMTP_URL ? nodemailer.createTransport({ url: ctx.config.SMTP_URL, pool: true, maxConnections: 4 }) : null;
  return async (payload, helpers) => {
    const id = (payload as { email_id?: unknown }).email_id;
    if (!Number.isInteger(id)) return;
    const pool = ctx.db.pool;
    const { rows } = await pool.query<{ to_address: string; subject: string; body: string }>(
      "UPDATE notification_emails SET attempts = attempts + 1 WHERE id = $1 AND status = 'queued' RETURNING to_address, subject, body",
      [id],
    );
    const mail = rows[0];
    if (!mail) return;
    if (!transport) {
      await pool.query("UPDATE notification_emails SET status = 'skipped', last_error = 'SMTP_URL is not set' WHERE id = $1", [id]);
      return;
    }
    try {
      await transport.sendMail({ from: ctx.config.MAIL_FROM, to: mail.to_address, subject: mail.subject, text: mail.body });
      await pool.query("UPDATE notification_emails SET status = 'sent', sent_at = now(), last_error = NULL WHERE id = $1", [id]);
    } catch (err) {
      const last = helpers.job.attempts >= helpers.job.max_attempts;
      await pool.query("UPDATE notification_emails SET last_error = $2, status = CASE WHEN $3 THEN 'failed' ELSE status END WHERE id = $1", [id, (err as Error).message.slice(0, 1000), last]);
      if (!last) throw err;
    }
  };
}

/**
 * One mail listing what the hourly cap held back, once the window allows; otherwise it waits for
 * the window again. Held mails are marked digested with the digest's id.
 */
export function emailDigestTask(ctx: AppContext): Task {
  return async (payload) => {
    const userId = (payload as { user_id?: unknown }).user_id;
    if (!Number.isInteger(userId)) return;
    await withTransaction(ctx.db.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('notification_email'), $1)", [userId]);
      const cap = (await readRuntimeSetting(client, "notifications")).email_max_per_hour;
      const used = (
        await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM notification_emails WHERE user_id = $1 AND status IN ('queued', 'sent') AND created_at > now() - interval '1 hour'",
          [userId],
        )
      ).rows[0].n;
      const held = await client.query<{ id: number; to_address: string; subject: string; body: string; created_at: Date }>(
        "SELECT id, to_address, subject, body, created_at FROM notification_emails WHERE user_id = $1 AND status = 'throttled' ORDER BY id",
        [userId],
      );
      if (held.rows.length === 0) return;
      if (cap > 0 && used >= cap) return scheduleDigest(client, userId as number);
      const body = [
        `${held.rows.length} notification e-mails were held back by the hourly limit (notifications.email_max_per_hour = ${cap}):`,
        "",
        ...held.rows.map((m) => `--- ${m.created_at.toISOString()} ${m.subject}\n${m.body}`),
      ].join("\n");
      const digest = await client.query<{ id: number }>(
        "INSERT INTO notification_emails (user_id, to_address, subject, body, status) VALUES ($1, $2, $3, $4, 'queued') RETURNING id",
        [userId, held.rows[0].to_address, `[workbench] Digest: ${held.rows.length} notifications`, body],
      );
      await client.query("UPDATE notification_emails SET status = 'digested', digest_id = $2 WHERE id = ANY($1::int[])", [held.rows.map((m) => m.id), digest.rows[0].id]);
      await enqueueJob(client, SEND_EMAIL_TASK, { email_id: digest.rows[0].id }, { maxAttempts: SEND_EMAIL_ATTEMPTS });
    });
  };
}
