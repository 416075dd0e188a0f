/**
 * Settings and Administration in the browser: an API key whose token is shown once (copied, used
 * against the API, gone after a reload), disabled, enabled and deleted; the retention preview
 * counting real MISP events; scheduled tasks; the admin pages; a non-administrator who does not see
 * Administration and gets the API's refusal when opening it; axe and screenshots at both widths.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { ADMIN_EMAIL, startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";

let app: TestApp;
let admin: TestUser;
let analyst: TestUser;
let browser: Browser;
/** Event timestamps (epoch seconds) of the imported sample events. */
const timestamps: number[] = [];
const DAY = 86_400;

/** Events the preview must count for a period: older than it, none carries the exempt tag. */
const olderThan = (days: number) => timestamps.filter((t) => t < Date.now() / 1000 - days * DAY).length;

async function status(token: string, route: string): Promise<number> {
  return (await fetch(`${app.url}${route}`, { headers: { authorization: `Bearer ${token}` } })).status;
}

beforeAll(async () => {
  app = await startTestApp("web-settings");
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  browser = await launchBrowser();
  // The smaller events of the Infoblox sample, with their own timestamps (2023 to 2026).
  const dir = sharedPath("misp-feed-sample");
  const docs = fs
    .readdirSync(dir)
    .filter((f) => /^[0-9a-f-]{36}\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as { Event: { uuid: string; timestamp: string; Attribute?: unknown[] } })
    .sort((a, b) => (a.Event.Attribute?.length ?? 0) - (b.Event.Attribute?.length ?? 0))
    .slice(0, 6);
  for (const doc of docs) {
    const res = await app.http.post("/events/import?on_invalid=skip", { token: admin.token, json: doc });
    expect(res.status, res.text).toBe(201);
    timestamps.push(Number(doc.Event.timestamp));
  }
  const follow = await app.http.graphql(`mutation($u: String!) { follow(list: EVENTS, uuid: $u) }`, { u: docs[0].Event.uuid }, admin.token);
  expect(follow.body.errors).toBeUndefined();
  const scheduled = await app.http.graphql(
    `mutation { scheduleTask(name: "Nightly retention", task: "enforce_retention", schedule: { type: INTERVAL, every: 1, period: DAYS }) { id } }`,
    {},
    admin.token,
  );
  expect(scheduled.body.errors).toBeUndefined();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe("settings in the browser", () => {
  it("shows a new API key's token once: copied, working against the API within its scopes, gone after a reload", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
      await signIn(page, app.url, "/settings/api-keys");
      await page.getByText("You have no API keys.").waitFor();
      await page.getByRole("textbox", { name: "Key name" }).fill("browser key");
      const scopes = page.getByRole("combobox", { name: "Scopes" });
      await scopes.click();
      await scopes.fill("events:read");
      await page.getByRole("option", { name: /^events:read — / }).click();
      await page.keyboard.press("Escape");
      await page.getByRole("button", { name: "Create key" }).click();

      const shown = page.getByLabel("New API key token");
      await shown.waitFor();
      const token = (await shown.textContent())!;
      expect(token).toMatch(/^[0-9a-f]{40}$/);
      await page.getByRole("button", { name: "Copy the token" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
      // The key works, within its one scope.
      expect(await status(token, "/events/")).toBe(200);
      expect(await status(token, "/hunts/")).toBe(403);

      const row = page.getByRole("row", { name: /browser key/ });
      await row.getByText("events:read").waitFor();
      await page.reload();
      await page.getByRole("row", { name: /browser key/ }).waitFor();
      expect(await page.getByLabel("New API key token").count()).toBe(0);
      expect(await page.content()).not.toContain(token);

      // Disabled and enabled again by its switch; then deleted for good.
      await page.getByRole("switch", { name: "Enable key browser key" }).click({ force: true });
      await eventually(async () => ((await status(token, "/events/")) === 401 ? true : undefined), "the disabled key refused", 10_000, 100);
      await page.getByRole("switch", { name: "Enable key browser key" }).click({ force: true });
      await eventually(async () => ((await status(token, "/events/")) === 200 ? true : undefined), "the enabled key accepted", 10_000, 100);
      await page.getByRole("button", { name: "Delete key browser key" }).click();
      await page.getByRole("button", { name: "Delete for good: key browser key" }).click();
      await page.getByText("You have no API keys.").waitFor();
      await eventually(async () => ((await status(token, "/events/")) === 401 ? true : undefined), "the deleted key refused", 10_000, 100);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("counts the events a retention period would delete before saving it", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/settings/retention");
      const preview = page.getByTestId("retention-preview");
      const expected365 = olderThan(365);
      expect(expected365).toBeGreaterThan(0);
      await expect.poll(() => preview.textContent()).toBe(`${expected365} events would be deleted with a period of 365 days`);

      const period = page.getByRole("textbox", { name: "Retention period (days)" });
      await period.fill("900");
      const expected900 = olderThan(900);
      expect(expected900).toBeLessThan(expected365);
      await expect.poll(() => preview.textContent()).toBe(`${expected900} ${expected900 === 1 ? "event" : "events"} would be deleted with a period of 900 days`);
      const api = await app.http.get("/events/retention/preview?period_days=900", { token: admin.token });
      expect(api.body.count).toBe(expected900);

      await page.getByRole("button", { name: "Save retention settings" }).click();
      await page.getByText("Saved.").waitFor();
      const stored = await app.http.get("/events/retention/status", { token: admin.token });
      expect(stored.body).toMatchObject({ enabled: false, period_days: 900, warning_days: 30, exempt_tags: ["retention:exempt"] });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists scheduled tasks, runs one now and shows its runs; lists follows and unfollows", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/settings/tasks");
      await page.getByRole("cell", { name: "Nightly retention", exact: true }).waitFor();
      await page.getByRole("button", { name: "Run now: Nightly retention" }).click();
      await page.getByRole("button", { name: "Runs of Nightly retention" }).click();
      await page.getByRole("heading", { name: "Runs of Nightly retention" }).waitFor();
      await page.getByRole("region", { name: "Table of runs of Nightly retention", exact: true }).getByRole("cell", { name: "manual" }).waitFor();
      await page.getByRole("switch", { name: "Enable task Nightly retention" }).click({ force: true });
      await page.getByRole("cell", { name: "Paused", exact: true }).waitFor();

      await page.getByRole("tab", { name: "Follows" }).click();
      expect(new URL(page.url()).pathname).toBe("/settings/follows");
      const unfollow = page.getByRole("button", { name: /^Unfollow / });
      await unfollow.waitFor();
      await unfollow.click();
      await page.getByText("You follow no events.").waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("loads the admin pages: users, roles, organisations (created here) and the audit log with a filter", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/admin");
      await page.getByRole("cell", { name: ADMIN_EMAIL, exact: true }).waitFor();
      await page.getByRole("cell", { name: analyst.email, exact: true }).waitFor();
      await page.getByRole("tab", { name: "Roles" }).click();
      await page.getByRole("cell", { name: "org_admin", exact: true }).waitFor();
      await page.getByRole("tab", { name: "Organisations" }).click();
      await page.getByRole("button", { name: "New organisation" }).click();
      await page.getByRole("textbox", { name: "Organisation name" }).fill("Browser CERT");
      await page.getByRole("textbox", { name: "Type (for example CERT, vendor)" }).fill("CERT");
      await page.getByRole("button", { name: "Create organisation" }).click();
      await page.getByRole("cell", { name: "Browser CERT", exact: true }).waitFor();
      const orgs = await app.http.get("/organisations/", { token: admin.token });
      expect(orgs.body.map((o: { name: string }) => o.name)).toContain("Browser CERT");
      // A second one, deleted: Delete asks first; the second press deletes it for good.
      await page.getByRole("button", { name: "New organisation" }).click();
      await page.getByRole("textbox", { name: "Organisation name" }).fill("Short-lived CERT");
      await page.getByRole("button", { name: "Create organisation" }).click();
      await page.getByRole("button", { name: "Delete organisation Short-lived CERT" }).click();
      await page.getByRole("button", { name: "Delete for good: organisation Short-lived CERT" }).click();
      await page.getByRole("cell", { name: "Short-lived CERT", exact: true }).waitFor({ state: "detached" });
      const left = (await app.http.get("/organisations/", { token: admin.token })).body.map((o: { name: string }) => o.name);
      expect(left).toContain("Browser CERT");
      expect(left).not.toContain("Short-lived CERT");

      await page.getByRole("tab", { name: "Audit log" }).click();
      expect(new URL(page.url()).pathname).toBe("/admin/audit");
      await page.getByRole("textbox", { name: "Action" }).fill("organisation.created");
      await page.getByRole("button", { name: "Apply filters" }).click();
      // The two organisations created here (the filter applies on the server).
      await page.getByText("Page 1 of 1 · 2 audit entries").waitFor();
      expect(await page.getByRole("cell", { name: "organisation.created", exact: true }).count()).toBe(2);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("locks another user's API key from the admin page (the owner's key stops working) and unlocks it", async () => {
    const minted = await app.http.post("/api-keys/", { token: analyst.token, json: { name: "analyst key", scopes: ["events:read"] } });
    expect(minted.status, minted.text).toBe(201);
    const token = minted.body.token as string;
    expect(await status(token, "/events/")).toBe(200);
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/admin/api-keys");
      await page.getByRole("textbox", { name: "Owner's user id" }).fill(String(analyst.id));
      await page.getByRole("button", { name: "Show keys" }).click();
      const lock = page.getByRole("switch", { name: `Lock key analyst key of user ${analyst.id}` });
      await lock.click({ force: true });
      await eventually(async () => ((await status(token, "/events/")) === 401 ? true : undefined), "the locked key refused", 10_000, 100);
      // The owner cannot clear the administrator's lock.
      const own = await app.http.patch(`/api-keys/${minted.body.id}`, { token: analyst.token, json: { disabled: false } });
      expect(own.status).toBeGreaterThanOrEqual(400);
      await lock.click({ force: true });
      await eventually(async () => ((await status(token, "/events/")) === 200 ? true : undefined), "the unlocked key accepted", 10_000, 100);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("hides Administration from a non-administrator, who gets the API's refusal at /admin", async () => {
    const refusal = await app.http.graphql("{ users(page: 1, size: 20) { total } }", {}, analyst.token);
    const message = refusal.body.errors?.[0]?.message as string;
    expect(message).toBeTruthy();
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/settings", analyst.email, analyst.password);
      await page.getByRole("tab", { name: "API keys" }).waitFor();
      expect(await page.getByRole("link", { name: "Administration" }).count()).toBe(0);
      // The role has no runtime-settings or task scopes: those tabs are left out.
      expect(await page.getByRole("tab", { name: "Retention" }).count()).toBe(0);
      await page.goto(`${app.url}/admin`);
      await page.getByRole("alert").filter({ hasText: message }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation on the settings and admin pages at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      page.setDefaultTimeout(10_000);
      try {
        await signIn(page, app.url, "/settings/api-keys");
        const pages: [string, string, () => Promise<void>][] = [
          ["/settings/api-keys", "settings-api-keys", () => page.getByRole("button", { name: "Create key" }).waitFor()],
          ["/settings/follows", "settings-follows", () => page.getByRole("heading", { name: "Organisations" }).waitFor()],
          ["/settings/retention", "settings-retention", () => page.getByTestId("retention-preview").waitFor()],
          ["/settings/tasks", "settings-tasks", () => page.getByRole("cell", { name: "Nightly retention", exact: true }).waitFor()],
          ["/admin/users", "admin-users", () => page.getByRole("cell", { name: ADMIN_EMAIL, exact: true }).waitFor()],
          ["/admin/roles", "admin-roles", () => page.getByRole("cell", { name: "read_only", exact: true }).waitFor()],
          ["/admin/organisations", "admin-organisations", () => page.getByRole("cell", { name: "Browser CERT", exact: true }).waitFor()],
          ["/admin/api-keys", "admin-api-keys", () => page.getByRole("cell", { name: "analyst key", exact: true }).waitFor()],
          ["/admin/audit", "admin-audit", () => page.getByRole("cell", { name: "organisation.created", exact: true }).first().waitFor()],
        ];
        for (const [at, name, ready] of pages) {
          await page.goto(`${app.url}${at}`);
          await ready();
          expect(await accessibilityViolations(page), at).toEqual([]);
          await screenshot(page, name, width);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
