/**
 * Hunt alerts through the notifications service (ROLE=all): the owner's row, the live graphql-ws
 * subscription and the e-mail to a real SMTP server on loopback; other users hear nothing.
 */
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually, freePort } from "../support/process.ts";
import { realCveRecords, startStandIn, type StandIn } from "../support/external-services.ts";
import { startSmtpServer, type Mail } from "../support/smtp.ts";

let app: TestApp;
let vulnDb: StandIn;
let smtp: { close(): Promise<void> };
let analyst: TestUser;
let bystander: TestUser;
const inbox: Mail[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  const port = await freePort();
  smtp = await startSmtpServer(port, inbox);
  vulnDb = await startStandIn();
  app = await startTestApp("hunts-alerts", { ROLE: "all", VULN_DB_URL: vulnDb.url, SMTP_URL: `smtp://127.0.0.1:${port}`, PUBLIC_URL: "https://workbench.example" });
  const admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  bystander = await createUser(app, admin, 3);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await app?.close();
  await vulnDb?.close();
  await smtp?.close();
});

function subscribe(user: TestUser, into: Record<string, any>[]): void {
  const client = createClient({ url: `${app.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${user.token}` }, retryAttempts: 0 });
  clients.push(client);
  client.subscribe<{ notificationCreated: Record<string, any> }>(
    { query: "subscription { notificationCreated { id type payload { ... on HuntNotificationPayload { huntId huntName total previousTotal newHits newHitCount } } } }" },
    { next: (r) => r.data && into.push(r.data.notificationCreated), error: () => undefined, complete: () => undefined },
  );
}

it("reaches the owner live and by e-mail, with the hunt's counts, new hits and a link; nobody else", async () => {
  const { pan, xz } = realCveRecords();
  vulnDb.records = [pan];
  const mine: Record<string, any>[] = [];
  const theirs: Record<string, any>[] = [];
  const before = app.booted.ctx.pubsub.subscriberCount();
  subscribe(analyst, mine);
  subscribe(bystander, theirs);
  await eventually(() => app.booted.ctx.pubsub.subscriberCount() >= before + 2 || undefined, "both subscriptions started", 10_000, 10);

  const hunt = (await app.http.post("/hunts/", { token: analyst.token, json: { name: "pan-os watch", query: "cpe:2.3:o:paloaltonetworks:pan-os", hunt_type: "cpe" } })).body;
  expect((await app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token })).status).toBe(200);
  const first = await eventually(() => mine[0], "the first-run alert, live", 5000, 20);
  expect(first).toMatchObject({ type: "hunt.result.first_run", payload: { huntId: hunt.id, huntName: "pan-os watch", total: 1, previousTotal: null, newHits: ["CVE-2024-3400"] } });

  vulnDb.records = [xz, pan];
  await app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token });
  const changed = await eventually(() => mine[1], "the changed alert, live", 5000, 20);
  expect(changed).toMatchObject({ type: "hunt.result.changed", payload: { total: 2, previousTotal: 1, newHits: ["CVE-2024-3094"], newHitCount: 1 } });

  const mails = await eventually(() => (inbox.length >= 2 ? inbox : undefined), "two e-mails", 15_000, 50);
  expect(mails.every((m) => m.to === analyst.email && m.subject === "[workbench] Hunt Results")).toBe(true);
  expect(mails.map((m) => m.text).join("\n")).toMatch(/Notification type: hunt\.result\.changed[\s\S]*new_hits: .*CVE-2024-3094/);
  expect(mails[0].text).toContain(`https://workbench.example/hunts/${hunt.id}`);
  await new Promise((r) => setTimeout(r, 300));
  expect(theirs).toEqual([]);
  expect(inbox.filter((m) => m.to === bystander.email)).toEqual([]);
});
