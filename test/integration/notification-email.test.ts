/**
 * Notification e-mail against a real SMTP server on loopback (smtp-server), parsed with postal-mime:
 * subject, body, recipient and link; the hourly cap at 10 and at 0; the digest of what the cap held
 * back; the per-user switch; SMTP down, then up again (sent once); and no SMTP_URL (skipped).
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually, freePort } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { startSmtpServer, type Mail } from "../support/smtp.ts";

let smtp: { close(): Promise<void> } | null = null;
let port: number;
const inbox: Mail[] = [];
let app: TestApp;
let admin: TestUser;
let alice: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

async function startSmtp(): Promise<void> {
  smtp = await startSmtpServer(port, inbox);
}

async function stopSmtp(): Promise<void> {
  await smtp?.close();
  smtp = null;
}

async function followedEvent(user: TestUser): Promise<string> {
  const e = await app.http.post("/events/", { token: admin.token, json: { info: "mail me", distribution: 1 } });
  // Follows are read when the notifier runs: follow only after the creation was handled.
  await settled(app);
  await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [e.body.uuid] } } });
  return e.body.uuid;
}

async function touch(eventUuid: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await app.http.patch(`/events/${eventUuid}`, { token: admin.token, json: { info: `mail me ${i}` } });
  await settled(app);
}

const emails = async (userId: number) => (await q("SELECT status, count(*)::int AS n FROM notification_emails WHERE user_id = $1 GROUP BY 1 ORDER BY 1", [userId])).rows;

beforeAll(async () => {
  port = await freePort();
  await startSmtp();
  app = await startTestApp("notification-email", { ROLE: "all", SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: "workbench@example.test", PUBLIC_URL: "https://wb.example.test" });
  admin = await loginAdmin(app);
  alice = await createUser(app, admin, 3);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await stopSmtp();
});

describe("e-mail", () => {
  it("one mail per notification up to the hourly cap of 10, with the peer's subject and body and a link; the rest held, then one digest", async () => {
    const eventUuid = await followedEvent(alice);
    await touch(eventUuid, 12);
    const sent = await eventually(() => (inbox.length >= 10 ? inbox.slice() : undefined), "ten mails", 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(inbox).toHaveLength(10);
    const mail = sent[0];
    expect(mail).toMatchObject({ to: alice.email, from: "workbench@example.test", subject: "[workbench] Event Update" });
    expect(mail.text.startsWith("Notification type: event.updated\n\n")).toBe(true);
    expect(mail.text).toContain(`\n  event_uuid: ${eventUuid}\n`);
    expect(mail.text).toContain("  event_name: mail me");
    expect(mail.text).toContain(`https://wb.example.test/events/${eventUuid}`);
    expect(await emails(alice.id)).toEqual([{ status: "sent", n: 10 }, { status: "throttled", n: 2 }]);

    // The window moves on (the hour is shortened here): the digest job sends what was held, once.
    await q("UPDATE notification_emails SET created_at = created_at - interval '61 minutes' WHERE user_id = $1", [alice.id]);
    await q("SELECT graphile_worker.add_job('email_digest', json_build_object('user_id', $1::int), job_key => 'email_digest:' || $1, run_at => now())", [alice.id]);
    const digest = await eventually(() => inbox.find((m) => m.subject.startsWith("[workbench] Digest")), "the digest", 20_000);
    expect(digest.subject).toBe("[workbench] Digest: 2 notifications");
    expect(digest.text.match(/Notification type: event.updated/g)).toHaveLength(2);
    // The SMTP server has the digest before the send job commits its row as sent.
    const settledRows = [{ status: "digested", n: 2 }, { status: "sent", n: 11 }];
    await eventually(async () => JSON.stringify(await emails(alice.id)) === JSON.stringify(settledRows), "the digest recorded", 10_000).catch(() => undefined);
    expect(await emails(alice.id)).toEqual(settledRows);
  });

  it("a cap of 0 lifts the limit; email_notifications false stops mail", async () => {
    const bob = await createUser(app, admin, 3);
    await app.http.post("/settings/runtime/notifications", { token: admin.token, json: { email_max_per_hour: 0 } });
    const eventUuid = await followedEvent(bob);
    inbox.length = 0;
    await touch(eventUuid, 14);
    await eventually(() => (inbox.filter((m) => m.to === bob.email).length >= 14 ? true : undefined), "fourteen mails", 20_000);
    expect(await emails(bob.id)).toEqual([{ status: "sent", n: 14 }]);
    await app.http.post("/settings/user/notifications", { token: bob.token, json: { follow: { events: [eventUuid] }, email_notifications: false } });
    await touch(eventUuid, 2);
    expect((await q("SELECT count(*)::int AS n FROM notifications WHERE user_id = $1", [bob.id])).rows[0].n).toBe(16);
    expect(await emails(bob.id)).toEqual([{ status: "sent", n: 14 }]);
    await q("DELETE FROM runtime_settings WHERE namespace = 'notifications'");
  });

  it("SMTP down: the send is retried with backoff and the mail goes out once when SMTP is back", async () => {
    const carol = await createUser(app, admin, 3);
    const eventUuid = await followedEvent(carol);
    await stopSmtp();
    inbox.length = 0;
    await touch(eventUuid, 1);
    const failing = await eventually(async () => {
      const { rows } = await q("SELECT status, attempts, last_error FROM notification_emails WHERE user_id = $1", [carol.id]);
      return rows[0]?.last_error ? rows[0] : undefined;
    }, "a failed attempt", 20_000);
    expect(failing.status).toBe("queued");
    // Nothing listens on the port while it is down.
    await expect(new Promise((resolve, reject) => net.connect(port, "127.0.0.1").on("connect", resolve).on("error", reject))).rejects.toThrow();
    await startSmtp();
    const mail = await eventually(() => inbox.find((m) => m.to === carol.email), "the mail after SMTP came back", 60_000);
    expect(mail.subject).toBe("[workbench] Event Update");
    await new Promise((r) => setTimeout(r, 1000));
    expect(inbox.filter((m) => m.to === carol.email)).toHaveLength(1);
    const { rows } = await q("SELECT status, attempts FROM notification_emails WHERE user_id = $1", [carol.id]);
    expect(rows[0].status).toBe("sent");
    expect(rows[0].attempts).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

describe("without SMTP_URL", () => {
  it("send jobs are recorded as skipped", async () => {
    const other = await startTestApp("notification-email-off", { ROLE: "all" });
    try {
      const a = await loginAdmin(other);
      const u = await createUser(other, a, 3);
      const e = await other.http.post("/events/", { token: a.token, json: { info: "no smtp", distribution: 1 } });
      await other.http.post("/settings/user/notifications", { token: u.token, json: { follow: { events: [e.body.uuid] } } });
      await settled(other);
      await other.http.patch(`/events/${e.body.uuid}`, { token: a.token, json: { info: "no smtp 2" } });
      await settled(other);
      const row = await eventually(async () => {
        const { rows } = await other.booted.ctx.db.pool.query("SELECT status, last_error FROM notification_emails WHERE user_id = $1", [u.id]);
        return rows[0]?.status === "skipped" ? rows[0] : undefined;
      }, "skipped");
      expect(row.last_error).toBe("SMTP_URL is not set");
    } finally {
      await other.close();
    }
  });
});
