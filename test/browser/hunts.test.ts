/**
 * Hunts in the browser against the real service (ROLE=all) with real MISP events of ../shared/data
 * and the ATT&CK galaxy: a hunt created from Explore's "save as hunt" link, run twice, its
 * notifications arriving live in the header's counter and as toasts; the history chart, the
 * schedule control (frequency, custom cron), pause/resume and clearing the history; the CPE builder
 * and the ATT&CK technique picker; the list; axe and screenshots at both widths.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { realCveRecords, ruleFor, startStandIn, type StandIn } from "../support/external-services.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // 3 sha256 attributes
const DECOY_DOG = "6c1c6c4f-5cde-474f-bb69-8e5b8b041f81"; // 5 more sha256 attributes
const BABYSHARK = "5c706a30-8ad4-4fcc-9e17-4d3d02de0b81"; // event tag Stolen Developer Credentials or Signing Keys - T1441
/** Explore's query with the time clause its range control adds. */
const QUERY = "type:sha256 AND @timestamp:[now-100y TO now]";

const readJson = (...p: string[]) => JSON.parse(fs.readFileSync(sharedPath(...p), "utf8"));

describe("hunts in the browser", () => {
  let app: TestApp;
  let admin: TestUser;
  let browser: Browser;
  /** The vulnerability database and the rules service, on loopback with real CVE records. */
  let external: StandIn;
  let seededHunt: number;
  let analyst: TestUser; // the built-in user role: hunts:*, no task scopes
  let analystHunt: number;

  const api = {
    importEvent: async (...file: string[]) => {
      const res = await app.http.post("/events/import", { token: admin.token, json: readJson(...file) });
      expect(res.status, res.text).toBe(201);
    },
    hunt: async (id: number) => (await app.http.get(`/hunts/${id}`, { token: admin.token })).body,
  };

  beforeAll(async () => {
    external = await startStandIn();
    app = await startTestApp("web-hunts", { ROLE: "all", GALAXY_SOURCE: sharedPath("misp-galaxy"), VULN_DB_URL: external.url, RULES_URL: external.url });
    admin = await loginAdmin(app);
    for (const file of [
      ["misp-feed-sample", `${VOLTA}.json`],
      ["misp-events", "pymisp-reportlab-image_event.json"],
      ["misp-events", "pymisp-reportlab-galaxy_1.json"],
    ]) {
      await api.importEvent(...file);
    }
    expect((await app.http.post("/galaxies/update", { token: admin.token })).status).toBe(200);
    const galaxy = (await app.http.get("/galaxies/?filter=Attack%20Pattern", { token: admin.token })).body.items[0];
    expect((await app.http.patch(`/galaxies/${galaxy.id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    await settled(app);
    // A hunt with a history for the width checks.
    const seeded = await app.http.post("/hunts/", { token: admin.token, json: { name: "Seeded domains", query: `event_uuid:${VOLTA} AND type:domain`, schedule: "daily" } });
    seededHunt = seeded.body.id;
    for (let i = 0; i < 2; i++) expect((await app.http.post(`/hunts/${seededHunt}/run`, { token: admin.token })).status).toBe(200);
    analyst = await createUser(app, admin, 3);
    analystHunt = (await app.http.post("/hunts/", { token: analyst.token, json: { name: "Analyst domains", query: `event_uuid:${VOLTA} AND type:domain`, schedule: "daily" } })).body.id;
    for (let i = 0; i < 2; i++) expect((await app.http.post(`/hunts/${analystHunt}/run`, { token: analyst.token })).status).toBe(200);
    // Its first-run notification is read: the header starts at 0.
    expect((await app.http.patch("/notifications/all/read", { token: admin.token })).status).toBeLessThan(300);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await external?.close();
  });

  const sha256Count = async () => (await app.http.get(`/attributes/search?query=${encodeURIComponent(QUERY)}&size=1`, { token: admin.token })).body.total as number;
  const unread = async (page: Page) => Number(await page.getByTestId("unread-count").getAttribute("data-unread"));
  const waitUnread = (page: Page, n: number) => page.waitForFunction((want) => document.querySelector("[data-testid=unread-count]")?.getAttribute("data-unread") === String(want), n);

  it("creates a hunt from Explore's link, runs it, and its notifications arrive live in the header", async () => {
    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, `/hunts/new?type=lucene&query=${encodeURIComponent(QUERY)}`);
      await expect(page.getByRole("combobox", { name: "Lucene query" }).inputValue()).resolves.toBe(QUERY);
      await expect(page.getByRole("combobox", { name: "Hunt type" }).inputValue()).resolves.toBe("SEARCH");
      await expect(page.getByRole("combobox", { name: "Index searched" }).inputValue()).resolves.toBe("ATTRIBUTES");
      await page.getByRole("button", { name: "Query syntax help" }).click();
      await page.getByText("A field equals a value").waitFor();
      // Without a name the form says so and sends nothing.
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByText("Give the hunt a name.").waitFor();
      await page.getByRole("textbox", { name: "Name" }).fill("sha256 watch");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("heading", { name: "sha256 watch", level: 1 }).waitFor();
      const id = Number(new URL(page.url()).pathname.split("/").pop());
      expect(await api.hunt(id)).toMatchObject({ name: "sha256 watch", query: QUERY, hunt_type: "search", index_target: "attributes", status: "active" });
      await page.getByText("No results yet: run the hunt.").waitFor();
      await page.getByText("No runs yet: run the hunt to start its history.").waitFor();
      expect(await unread(page)).toBe(0);
      // Marks the document: a reload would lose it.
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

      await page.getByRole("button", { name: "Run hunt" }).click();
      const before = await sha256Count();
      expect(before).toBeGreaterThanOrEqual(3);
      await page.getByTestId("hunt-result-summary").filter({ hasText: new RegExp(`^${before} matches`) }).waitFor();
      await waitUnread(page, 1);
      await page.getByRole("alert").filter({ hasText: "Hunt result first run" }).waitFor();
      await page.getByRole("img", { name: new RegExp(`^Match counts of 1 run; latest ${before}`) }).waitFor();
      expect(await page.getByRole("list", { name: "Hits" }).getByRole("listitem").count()).toBe(Math.min(before, 20));

      // New sha256 values arrive: the next run's count changes, and the owner hears of it live.
      await api.importEvent("misp-feed-sample", `${DECOY_DOG}.json`);
      await settled(app);
      await page.getByRole("button", { name: "Run hunt" }).click();
      expect(await sha256Count()).toBe(before + 5);
      await page.getByTestId("hunt-result-summary").filter({ hasText: new RegExp(`^${before + 5} matches .*, 5 new`) }).waitFor();
      await waitUnread(page, 2);
      await page.getByRole("alert").filter({ hasText: "Hunt result changed" }).waitFor();
      await expect(page.getByRole("button", { name: "Notifications: 2 unread" }).isVisible()).resolves.toBe(true);
      await page.getByRole("img", { name: `Match counts of 2 runs; latest ${before + 5}, lowest ${before}, highest ${before + 5}; 1 run with new hits` }).waitFor();
      expect(await page.getByText("New", { exact: true }).count()).toBe(5);
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
      const notes = (await app.http.get("/notifications?type=hunt.result.changed", { token: admin.token })).body.items;
      expect(notes[0].payload).toMatchObject({ hunt_id: id, total: before + 5, previous_total: before, new_hit_count: 5 });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("completes field names in the Lucene box as Explore does, and marks where the API's parser refuses the query", async () => {
    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    const box = page.getByRole("combobox", { name: "Lucene query" });
    try {
      await signIn(page, app.url, "/hunts/new?type=lucene");
      await page.getByRole("textbox", { name: "Name" }).fill("Refused query");
      await box.fill("typ");
      await page.getByRole("listbox").getByRole("option", { name: /^type text \(attributes\)/ }).waitFor();
      await box.press("ArrowDown");
      await box.press("Enter");
      await expect.poll(() => box.inputValue()).toBe("type:");
      expect(page.url()).toMatch(/\/hunts\/new/);

      const bad = "type:domain OR ) value:x";
      const refused = await app.http.post("/hunts/", { token: admin.token, json: { name: "Refused query", query: bad } });
      expect(refused.status).toBe(400);
      expect(refused.body.position.offset).toBe(15);
      await box.fill(bad);
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByText(refused.body.detail, { exact: true }).waitFor();
      await expect(page.getByTestId("query-error-mark").innerText()).resolves.toBe(")");
      await page.getByText("The query fails at character 16:").waitFor();
      await expect(box.getAttribute("aria-invalid")).resolves.toBe("true");
      await expect(box.evaluate((el: HTMLInputElement) => [el.selectionStart, el.selectionEnd])).resolves.toEqual([15, 16]);
      expect(await page.getByRole("alert").filter({ hasText: "The hunt was not saved" }).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);

      // Edited, the mark goes; fixed, the hunt saves.
      await box.fill("type:domain OR value:x");
      expect(await page.getByTestId("query-error-mark").count()).toBe(0);
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("heading", { name: "Refused query", level: 1 }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("schedules (weekly, a custom cron, none) for a user without task scopes, pauses and resumes, and clears the history", async () => {
    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, `/hunts/${analystHunt}`, analyst.email, analyst.password);
      const schedule = page.getByRole("combobox", { name: "Schedule" });
      await expect(schedule.inputValue()).resolves.toBe("daily");
      await schedule.selectOption("weekly");
      const save = page.getByRole("button", { name: "Save schedule" });
      await save.click();
      await page.getByText(/^Weekly, next /).waitFor();
      expect((await api.hunt(analystHunt)).schedule).toBe("weekly");

      await schedule.selectOption("custom");
      const cron = page.getByRole("textbox", { name: "Cron expression" });
      await cron.fill("30 25 * * 1-5");
      await page.getByText("The hour field takes 0 to 23.").waitFor();
      await expect(save.isDisabled()).resolves.toBe(true);
      await cron.fill("30 6 * * 1-5");
      await save.click();
      await page.getByText(/^Custom \(cron\), next .*\(.+\)\.$/).waitFor();
      expect((await api.hunt(analystHunt)).schedule).toBe("custom");
      const taskId = (await api.hunt(analystHunt)).scheduled_task_id;
      const task = (await app.http.get(`/tasks/scheduled/${taskId}`, { token: admin.token })).body;
      expect(task.schedule).toMatchObject({ minute: "30", hour: "6", day_of_month: "*", month_of_year: "*", day_of_week: "1-5" });
      // Read back from the task after the page reloads its hunt.
      await page.reload();
      await expect.poll(() => page.getByRole("textbox", { name: "Cron expression" }).inputValue()).toBe("30 6 * * 1-5");

      await page.getByRole("button", { name: "Pause hunt" }).click();
      await page.getByRole("button", { name: "Resume hunt" }).waitFor();
      expect(await api.hunt(analystHunt)).toMatchObject({ status: "paused" });
      await page.getByText("Paused: the schedule skips it until it is resumed.").waitFor();
      await page.getByRole("button", { name: "Resume hunt" }).click();
      await page.getByRole("button", { name: "Pause hunt" }).waitFor();
      expect(await api.hunt(analystHunt)).toMatchObject({ status: "active" });

      await page.getByRole("combobox", { name: "Schedule" }).selectOption("none");
      await save.click();
      await page.getByText("Not scheduled: the hunt runs only when you run it.").waitFor();
      expect(await api.hunt(analystHunt)).toMatchObject({ schedule: null, scheduled_task_id: null });

      await page.getByRole("img", { name: /^Match counts of 2 runs/ }).waitFor();
      await page.getByRole("button", { name: "Clear history" }).click();
      await page.getByRole("group", { name: "Confirm clearing the history" }).getByRole("button", { name: "Clear for good" }).click();
      await page.getByText("No runs yet: run the hunt to start its history.").waitFor();
      await page.getByText("No results yet: run the hunt.").waitFor();
      expect((await app.http.get(`/hunts/${analystHunt}/history`, { token: admin.token })).body).toEqual([]);
      expect((await app.http.get(`/hunts/${analystHunt}/results`, { token: admin.token })).status).toBe(404);
      // It runs again from scratch.
      await page.getByRole("button", { name: "Run hunt" }).click();
      await page.getByRole("img", { name: /^Match counts of 1 run; latest 20/ }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("builds a CPE hunt field by field, picks ATT&CK techniques from the galaxy, takes a rules id, and shows each hit shape", async () => {
    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/hunts/new");
      await page.getByRole("textbox", { name: "Name" }).fill("PAN-OS CVEs");
      await page.getByRole("combobox", { name: "Hunt type" }).selectOption("CPE");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByText(/Choose the part/).first().waitFor();
      await page.getByRole("combobox", { name: "Part" }).selectOption("o");
      await page.getByRole("textbox", { name: "Vendor" }).fill("PaloAltoNetworks");
      await page.getByRole("textbox", { name: "Product" }).fill("PAN-OS");
      await expect(page.getByTestId("cpe-string").textContent()).resolves.toBe("cpe:2.3:o:paloaltonetworks:pan-os");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("heading", { name: "PAN-OS CVEs", level: 1 }).waitFor();
      await page.getByText("cpe:2.3:o:paloaltonetworks:pan-os", { exact: true }).waitFor();
      // The vulnerability database fails: the run fails with the API's reason, recorded in the history.
      external.fail("status", { status: 503 });
      await page.getByRole("button", { name: "Run hunt" }).click();
      await page.getByRole("alert").filter({ hasText: "The run failed" }).waitFor();
      await page.getByRole("img", { name: /^Match counts of 1 run; 0 runs with new hits; 1 failed/ }).waitFor();
      // Back: the CVE hit with its severity.
      external.clear();
      external.records = [realCveRecords().pan];
      await page.getByRole("button", { name: "Run hunt" }).click();
      const cve = page.getByRole("list", { name: "Hits" }).getByRole("listitem");
      await cve.getByText("CVE-2024-3400", { exact: true }).waitFor();
      await cve.getByText("CRITICAL", { exact: true }).waitFor();
      // Editing reads the CPE back into its fields.
      await page.getByRole("link", { name: "Edit hunt" }).click();
      await expect(page.getByRole("textbox", { name: "Vendor" }).inputValue()).resolves.toBe("paloaltonetworks");
      await expect(page.getByRole("combobox", { name: "Part" }).inputValue()).resolves.toBe("o");

      await page.goto(`${app.url}/hunts/new`);
      await page.getByRole("textbox", { name: "Name" }).fill("Signing keys");
      await page.getByRole("combobox", { name: "Hunt type" }).selectOption("FW_ATTACK_PATTERN");
      const picker = page.getByRole("combobox", { name: "ATT&CK techniques" });
      await picker.click();
      await picker.fill("T1441");
      await page.getByRole("option", { name: "Stolen Developer Credentials or Signing Keys - T1441" }).click();
      await page.keyboard.press("Escape");
      await expect(page.getByRole("combobox", { name: "Index searched" }).inputValue()).resolves.toBe("EVENTS");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("heading", { name: "Signing keys", level: 1 }).waitFor();
      const id = Number(new URL(page.url()).pathname.split("/").pop());
      expect(await api.hunt(id)).toMatchObject({ hunt_type: "fw-attack-pattern", query: "T1441", index_target: "events" });
      await page.getByRole("button", { name: "Run hunt" }).click();
      const hit = page.getByRole("list", { name: "Hits" }).getByRole("listitem");
      await hit.getByRole("link", { name: /BabyShark/ }).waitFor();
      expect(await hit.getByRole("link").getAttribute("href")).toBe(`/events/${BABYSHARK}`);
      expect(await hit.getByText("event", { exact: true }).count()).toBe(1);

      // A rules hunt takes one id; the form says what it wants.
      await page.goto(`${app.url}/hunts/new?type=cve`);
      await page.getByRole("textbox", { name: "Name" }).fill("Rules");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByText(/Give a CVE id/).waitFor();
      await page.getByRole("textbox", { name: "CVE or advisory id" }).fill("CVE-2024-3400'; --");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("alert").filter({ hasText: "one vulnerability id" }).waitFor();
      external.rules.set("cve-2024-3400", [ruleFor("cve-2024-3400", 1), ruleFor("cve-2024-3400", 2)]);
      await page.getByRole("textbox", { name: "CVE or advisory id" }).fill("CVE-2024-3400");
      await page.getByRole("button", { name: "Create hunt" }).click();
      await page.getByRole("heading", { name: "Rules", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Run hunt" }).click();
      const rule = page.getByRole("link", { name: "Detect exploitation of CVE-2024-3400 (1)" });
      expect(await rule.getAttribute("href")).toBe("https://rulezet.org/rule/detail_rule/1001");
      await page.getByRole("list", { name: "Hits" }).getByText("sigma", { exact: true }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`lists hunts with their state, and has no serious accessibility violation at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      try {
        await signIn(page, app.url, "/hunts");
        const link = page.getByRole("link", { name: "Seeded domains" });
        await link.waitFor();
        const row = width === "desktop" ? page.getByRole("row").filter({ has: link }) : page.getByRole("listitem").filter({ has: link });
        await row.getByText("Active").waitFor();
        expect(await row.textContent()).toMatch(/Search/);
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "hunts", width);

        await page.getByRole("textbox", { name: "Filter hunts by name" }).fill("no such hunt");
        await page.getByText("No hunt has that in its name.").waitFor();

        await page.goto(`${app.url}/hunts/new?type=lucene&query=${encodeURIComponent(QUERY)}`);
        await page.getByRole("combobox", { name: "Lucene query" }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "hunt-new", width);

        await page.goto(`${app.url}/hunts/${seededHunt}`);
        await page.getByRole("img", { name: /^Match counts/ }).waitFor();
        await page.getByRole("list", { name: "Hits" }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "hunt", width);

        await page.goto(`${app.url}/hunts/999999`);
        await page.getByRole("alert").filter({ hasText: "The hunt could not be loaded" }).waitFor();
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
