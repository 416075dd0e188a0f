/**
 * Notifications in the browser against the real service (ROLE=all) with real MISP events of
 * ../shared/data: follows produce event and attribute notifications, a hunt its first-run one; the
 * list pages on the server and filters by type, read state and type substring; mark one and all
 * read (the header's counter follows live), unfollow, delete one and all, a new notification
 * arriving live while the page is open, the e-mail switch; axe and screenshots at both widths.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8";
const OLYMPICS = "24e799ca-aad8-4244-8005-90b3ceb44540";
const C2_BEACON = "dad88707-beb8-4a14-94e2-5ffecf5a5f85";

describe("notifications in the browser", () => {
  let app: TestApp;
  let admin: TestUser;
  let browser: Browser;
  let huntId: number;

  const settings = async () => (await app.http.get("/settings/user/notifications", { token: admin.token })).body.notifications;
  const total = async (query = "") => (await app.http.get(`/notifications?size=1${query}`, { token: admin.token })).body.total as number;
  const unread = async (page: Page) => Number(await page.getByTestId("unread-count").getAttribute("data-unread"));
  const waitUnread = (page: Page, n: number) => page.waitForFunction((want) => document.querySelector("[data-testid=unread-count]")?.getAttribute("data-unread") === String(want), n);

  beforeAll(async () => {
    app = await startTestApp("web-notifications", { ROLE: "all" });
    admin = await loginAdmin(app);
    const follow = await app.http.post("/settings/user/notifications", { token: admin.token, json: { follow: { events: [VOLTA, OLYMPICS, C2_BEACON] } } });
    expect(follow.status, follow.text).toBe(200);
    for (const uuid of [VOLTA, OLYMPICS, C2_BEACON]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8")) });
      expect(res.status, res.text).toBe(201);
    }
    await settled(app);
    const hunt = await app.http.post("/hunts/", { token: admin.token, json: { name: "Olympics domains", query: `event_uuid:${OLYMPICS}` } });
    huntId = hunt.body.id;
    expect((await app.http.post(`/hunts/${huntId}/run`, { token: admin.token })).status).toBe(200);
    await settled(app);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      try {
        await signIn(page, app.url, "/notifications");
        await page.getByRole("list", { name: "Notifications" }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "notifications", width);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it("pages, filters, marks read, unfollows, deletes, shows new ones live, and switches e-mail", async () => {
    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      const all = await total();
      expect(all).toBeGreaterThan(20);
      await signIn(page, app.url, "/notifications");
      await page.getByText(`Page 1 of ${Math.ceil(all / 20)} · ${all} notifications`).waitFor();
      await waitUnread(page, all);
      const items = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
      expect(await items.count()).toBe(20);
      await page.getByRole("button", { name: "Next page" }).click();
      await page.getByText(`Page 2 of ${Math.ceil(all / 20)}`).waitFor();
      expect(await items.count()).toBe(Math.min(20, all - 20));

      // Exact type: the hunt's notification, which leads to the hunt and follows nothing.
      await page.getByRole("combobox", { name: "Type", exact: true }).selectOption("hunt.result.first_run");
      await page.getByText("Page 1 of 1 · 1 notifications").waitFor();
      const hunt = items.first();
      expect(await hunt.getByRole("link").getAttribute("href")).toBe(`/hunts/${huntId}`);
      expect(await hunt.getByRole("link").textContent()).toMatch(/^Hunt "Olympics domains": \d+ matches, \d+ new$/);
      expect(await hunt.getByRole("button", { name: /^Unfollow/ }).count()).toBe(0);
      await hunt.getByRole("button", { name: /^Mark read: Hunt result first run: Hunt "Olympics domains"/ }).click();
      await waitUnread(page, all - 1);
      await hunt.getByText("Unread").waitFor({ state: "detached" });

      await page.getByRole("combobox", { name: "Type", exact: true }).selectOption("");
      await page.getByRole("combobox", { name: "Read or unread" }).selectOption("read");
      await page.getByText("Page 1 of 1 · 1 notifications").waitFor();
      await page.getByRole("combobox", { name: "Read or unread" }).selectOption("unread");
      await page.getByText(`· ${all - 1} notifications`).waitFor();
      await page.getByRole("combobox", { name: "Read or unread" }).selectOption("all");

      // Substring of the type: the three events' creation.
      await page.getByRole("textbox", { name: "Type contains" }).fill("event.created");
      await page.getByText("Page 1 of 1 · 3 notifications").waitFor();
      await items.getByRole("button", { name: /^Unfollow: Event created: Event "volta_stealer/ }).click();
      await page.getByText("Page 1 of 1 · 2 notifications").waitFor();
      expect((await settings()).follow.events.sort()).toEqual([OLYMPICS, C2_BEACON].sort());
      await items.getByRole("button", { name: /^Delete: Event created: Event "c2_beacon/ }).click();
      await page.getByText("Page 1 of 1 · 1 notifications").waitFor();
      expect(await total("&type=event.created")).toBe(1);

      // A followed event changes while the page is open: the row and the counter arrive without a reload.
      await page.getByRole("textbox", { name: "Type contains" }).fill("event.updated");
      await page.getByText("No notification matches these filters.").waitFor();
      const before = await unread(page);
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
      expect((await app.http.post(`/events/${OLYMPICS}/tag/tlp:amber`, { token: admin.token })).status).toBe(201);
      await page.getByText("Page 1 of 1 · 1 notifications").waitFor({ timeout: 20_000 });
      await items.getByRole("link", { name: /^Event "olympics/ }).waitFor();
      await waitUnread(page, before + 1);
      await page.getByRole("alert").filter({ hasText: "Event updated" }).waitFor();
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
      await page.getByRole("textbox", { name: "Type contains" }).fill("");

      // The e-mail switch writes the setting and keeps the follows.
      const email = page.getByRole("switch", { name: "E-mail me my notifications" });
      await expect(email.isChecked()).resolves.toBe(true);
      await email.click();
      await expect.poll(async () => (await settings()).email_notifications).toBe(false);
      expect((await settings()).follow.events.sort()).toEqual([OLYMPICS, C2_BEACON].sort());
      // The switch follows the setting once it is read back after the save.
      await expect.poll(() => email.isChecked()).toBe(false);

      await page.getByRole("button", { name: "Mark all read" }).click();
      await waitUnread(page, 0);
      await page.getByRole("button", { name: "Notifications: none unread" }).waitFor();
      expect(await total("&read=false")).toBe(0);

      await page.getByRole("button", { name: "Delete all" }).click();
      await page.getByRole("group", { name: "Confirm deleting all notifications" }).getByRole("button", { name: "Delete all for good" }).click();
      await page.getByText("No notifications. Follow events, or create hunts, to be told when they change.").waitFor();
      expect(await total()).toBe(0);
      // The toast closes by a named button.
      await page.getByRole("button", { name: "Dismiss notification" }).click();
      await page.getByRole("alert").filter({ hasText: "Event updated" }).waitFor({ state: "detached" });
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
