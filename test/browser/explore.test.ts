/**
 * Explore in the browser against the real service (ROLE=all) with real MISP events of
 * ../shared/data: both indices searched at once with their totals (equal to the API's), paging, the
 * document drawer (a document holding HTML shown as text), field-name completion and the syntax
 * help, the time range and its @timestamp clause, a rejected query with the parser's message and
 * position, recent searches across a reload, saved searches (save, rename, run, delete, across a
 * reload; a name that looks like markup stays text), the export of each section (the file's
 * documents equal the totals), the search kept in the address across a reload, "save as hunt", a
 * search refused by the per-user limit retried; axe and screenshots at both widths.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { searchLimiterOf } from "../../src/modules/search/index.ts";

/** Real events: Xorist (9 attributes, 2016-08-30), Cerber (13, one an HTML page), Ursnif (5, 2018), SunOrcal (75, 2017). */
const FILES = ["57c4445b-c548-4654-af0b-4be3950d210f.json", "pymisp-reportlab-HTML_event.json", "pymisp-reportlab-sighting_1.json", "pymisp-reportlab-to_delete1.json"];
const HTML_ATTRIBUTE = "56e1498a-da10-48f7-995e-4fda950d210f";
/** A stray ')' at offset 15: the parser's position must land there even under a time clause. */
const BAD_QUERY = "type:domain OR ) value:x";

describe("Explore in the browser", () => {
  let app: TestApp;
  let admin: TestUser;
  /** Another administrator: the API's totals, without taking the page's concurrent-search slots. */
  let checker: TestUser;
  let browser: Browser;

  const apiSearch = async (target: "events" | "attributes", query: string) => {
    return app.http.get(`/${target}/search?size=1&query=${encodeURIComponent(query)}`, { token: checker.token });
  };
  const apiTotal = async (target: "events" | "attributes", query: string): Promise<number> => {
    const res = await apiSearch(target, query);
    expect(res.status, res.text).toBe(200);
    return res.body.total;
  };

  const queryBox = (page: Page) => page.getByRole("combobox", { name: "Query" });
  const total = (page: Page, target: "events" | "attributes") => page.getByTestId(`${target}-total`);
  const waitTotals = async (page: Page, events: number, attributes: number) => {
    await total(page, "events").filter({ hasText: new RegExp(`^${events} match`) }).waitFor();
    await total(page, "attributes").filter({ hasText: new RegExp(`^${attributes} match`) }).waitFor();
  };
  const search = async (page: Page, query: string) => {
    await queryBox(page).fill(query);
    await queryBox(page).press("Enter");
  };
  const effective = (page: Page) => page.getByTestId("effective-query").innerText();

  /** A page whose waits fail well inside the test's own timeout, naming what they waited for. */
  const open = async (width: Width = "desktop") => {
    const opened = await openPage(browser, width);
    opened.page.setDefaultTimeout(10_000);
    return opened;
  };

  beforeAll(async () => {
    app = await startTestApp("web-explore", { ROLE: "all" });
    admin = await loginAdmin(app);
    checker = await createUser(app, admin, admin.roleId);
    for (const file of FILES) {
      const res = await app.http.post("/events/import", { token: admin.token, json: JSON.parse(fs.readFileSync(sharedPath("misp-events", file), "utf8")) });
      expect(res.status, res.text).toBe(201);
    }
    await settled(app);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("searches both indices at once with their totals, pages on the server, and shows a whole document as text", async () => {
    const { context, page, problems } = await open();
    try {
      await signIn(page, app.url, "/explore");
      const [events, attributes] = [await apiTotal("events", ""), await apiTotal("attributes", "")];
      expect([events, attributes]).toEqual([4, 102]);
      await waitTotals(page, events, attributes);

      // Field-name completion from the search layer's field list: the word at the cursor.
      await queryBox(page).fill("typ");
      const options = page.getByRole("listbox");
      await options.getByRole("option", { name: /^type text \(attributes\)/ }).waitFor();
      await queryBox(page).press("ArrowDown");
      await queryBox(page).press("Enter");
      await expect.poll(() => queryBox(page).inputValue()).toBe("type:");
      await queryBox(page).pressSequentially("domain");
      await queryBox(page).press("Enter");
      const domains = await apiTotal("attributes", "type:domain");
      expect(domains).toBeGreaterThan(0);
      await waitTotals(page, 0, domains);
      await page.getByText("No events match.").waitFor();

      // The syntax help lists the syntax the parser takes.
      await page.getByRole("button", { name: "Query syntax help" }).click();
      for (const line of ["_exists_:comment", "value:evl~", "NOT", '"']) await page.getByRole("table").filter({ hasText: line }).first().waitFor();

      // Server paging: 102 attributes, 20 a page.
      await search(page, "");
      await waitTotals(page, 4, 102);
      const attributesSection = page.getByRole("region", { name: "Attributes" });
      await attributesSection.getByText("Page 1 of 6 · 102 attributes").waitFor();
      const firstPage = await attributesSection.getByRole("row").nth(1).innerText();
      await attributesSection.getByRole("button", { name: "Next page of attributes" }).click();
      await attributesSection.getByText("Page 2 of 6 · 102 attributes").waitFor();
      await expect.poll(() => attributesSection.getByRole("row").nth(1).innerText()).not.toBe(firstPage);

      // The drawer shows the whole document; an HTML page stored as a value stays text.
      await search(page, `uuid:${HTML_ATTRIBUTE}`);
      await waitTotals(page, 0, 1);
      await page.getByRole("button", { name: /^Open the attribute document: <!DOCTYPE html>/ }).click();
      const drawer = page.getByRole("dialog", { name: "Attribute document" });
      await drawer.getByRole("group", { name: `The attribute document ${HTML_ATTRIBUTE}` }).waitFor();
      for (const key of ["event_uuid", "category", "tags", "@timestamp", "value"]) await drawer.getByText(key, { exact: true }).first().waitFor();
      expect(await drawer.innerText()).toContain('<html lang="en">');
      expect(await page.locator("[role=dialog] link[href*='maxcdn'], [role=dialog] html, [role=dialog] head").count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await drawer.getByRole("button", { name: "Close the document" }).click();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("adds the @timestamp clause of a preset or an absolute range, shows the effective query, keeps it across a reload and saves it as a hunt", async () => {
    const { context, page, problems } = await open();
    try {
      await signIn(page, app.url, "/explore");
      await queryBox(page).fill("type:filename OR type:md5");
      const range = page.getByRole("combobox", { name: "Time range" });
      for (const preset of ["15m", "1h", "24h", "7d", "30d", "90d", "1y"]) {
        await range.selectOption(preset);
        expect(await effective(page)).toBe(`(type:filename OR type:md5) AND @timestamp:[now-${preset} TO now]`);
      }
      await queryBox(page).press("Enter");
      await waitTotals(page, 0, 0);

      // Absolute: the Xorist event of 2016-08-30 alone (times in the browser's zone, sent in UTC).
      await range.selectOption("absolute");
      await page.getByLabel("From").fill("2016-08-01T00:00");
      await page.getByLabel("To").fill("2016-09-30T23:59");
      const query = await effective(page);
      const from = new Date("2016-08-01T00:00").toISOString();
      const to = new Date("2016-09-30T23:59").toISOString();
      expect(query).toBe(`(type:filename OR type:md5) AND @timestamp:[${from} TO ${to}]`);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const attributes = await apiTotal("attributes", query);
      expect(attributes).toBeGreaterThan(0);
      expect(attributes).toBeLessThan(await apiTotal("attributes", "type:filename OR type:md5"));
      await waitTotals(page, 0, attributes);

      // The search is in the address: a reload shows it again.
      await page.reload();
      await expect(queryBox(page).inputValue()).resolves.toBe("type:filename OR type:md5");
      await expect(range.inputValue()).resolves.toBe("absolute");
      await expect(page.getByLabel("From").inputValue()).resolves.toBe("2016-08-01T00:00");
      await waitTotals(page, 0, attributes);

      // Save as hunt: the hunt form opens with the query and its time clause (type=lucene&query=…).
      await page.getByRole("button", { name: "Save as hunt" }).click();
      await page.waitForURL((u) => u.pathname === "/hunts/new");
      const url = new URL(page.url());
      expect(url.searchParams.get("type")).toBe("lucene");
      expect(url.searchParams.get("query")).toBe(query);
      await expect(page.getByRole("combobox", { name: "Lucene query" }).inputValue()).resolves.toBe(query);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows a rejected query's message from the API and marks where it fails, also under a time clause", async () => {
    const { context, page, problems } = await open();
    try {
      await signIn(page, app.url, "/explore");
      const refused = await apiSearch("attributes", BAD_QUERY);
      expect(refused.status).toBe(400);
      expect(refused.body.position.offset).toBe(15);
      await page.getByRole("combobox", { name: "Time range" }).selectOption("7d");
      await search(page, BAD_QUERY);
      await page.getByText(refused.body.detail, { exact: true }).waitFor();
      await expect(page.getByTestId("query-error-mark").innerText()).resolves.toBe(")");
      await page.getByText("The query fails at character 16:").waitFor();
      await expect(queryBox(page).getAttribute("aria-invalid")).resolves.toBe("true");
      await expect(queryBox(page).evaluate((el: HTMLInputElement) => [el.selectionStart, el.selectionEnd])).resolves.toEqual([15, 16]);
      expect(await page.getByText("Not searched: the query has an error.").count()).toBe(2);
      expect(await accessibilityViolations(page)).toEqual([]);

      // Fixed, the error goes.
      await search(page, "type:domain OR value:x");
      await total(page, "attributes").filter({ hasText: /match/ }).waitFor();
      expect(await page.getByTestId("query-error-mark").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("keeps the last searches in the browser across a reload, newest first, and runs one again", async () => {
    const { context, page, problems } = await open();
    try {
      await signIn(page, app.url, "/explore");
      for (const q of ["type:url", "type:domain", "type:url"]) {
        await search(page, q);
        await total(page, "attributes").filter({ hasText: new RegExp(`^${await apiTotal("attributes", q)} match`) }).waitFor();
      }
      // A refused query is not remembered.
      await search(page, BAD_QUERY);
      await page.getByTestId("query-error-mark").waitFor();
      await page.goto(`${app.url}/explore`);
      const recent = page.getByRole("list", { name: "Recent searches, newest first" });
      await recent.waitFor();
      expect((await recent.getByRole("button").allInnerTexts()).map((t) => t.split(/\s+/)[0])).toEqual(["type:url", "type:domain"]);
      const stored = JSON.parse((await page.evaluate(() => localStorage.getItem("workbench.explore.recent"))) ?? "[]");
      expect(stored).toEqual([
        { query: "type:url", time_range: { preset: "all" } },
        { query: "type:domain", time_range: { preset: "all" } },
      ]);
      await recent.getByRole("button", { name: "Run recent search type:domain · All time" }).click();
      await expect(queryBox(page).inputValue()).resolves.toBe("type:domain");
      await waitTotals(page, 0, await apiTotal("attributes", "type:domain"));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("saves searches with their time range in the user setting: save, rename, run, delete, across a reload", async () => {
    const { context, page, problems } = await open();
    const setting = async () => (await app.http.get("/settings/user/explore", { token: admin.token })).body.explore;
    try {
      await signIn(page, app.url, "/explore");
      await queryBox(page).fill("type:filename");
      await page.getByRole("combobox", { name: "Time range" }).selectOption("90d");
      await page.getByRole("button", { name: "Save search" }).click();
      const dialog = page.getByRole("dialog", { name: "Save this search" });
      await dialog.getByRole("textbox", { name: "Name" }).fill("Dropped files");
      expect(await accessibilityViolations(page)).toEqual([]);
      await dialog.getByRole("button", { name: "Save" }).click();
      await page.getByRole("button", { name: "Run saved search Dropped files" }).waitFor();
      expect(await setting()).toEqual({ saved_searches: [{ name: "Dropped files", query: "type:filename", time_range: { preset: "90d" } }] });

      await page.reload();
      await page.getByRole("button", { name: "Rename saved search Dropped files" }).click();
      const rename = page.getByRole("dialog", { name: "Rename the saved search" });
      await rename.getByRole("textbox", { name: "Name" }).fill("Files, last quarter");
      await rename.getByRole("button", { name: "Rename" }).click();
      await page.getByRole("button", { name: "Run saved search Files, last quarter" }).click();
      await expect(queryBox(page).inputValue()).resolves.toBe("type:filename");
      await expect(page.getByRole("combobox", { name: "Time range" }).inputValue()).resolves.toBe("90d");
      expect(await effective(page)).toBe("(type:filename) AND @timestamp:[now-90d TO now]");
      await waitTotals(page, 0, 0);
      expect((await setting()).saved_searches).toEqual([{ name: "Files, last quarter", query: "type:filename", time_range: { preset: "90d" } }]);

      // A name is text, never markup.
      const hostile = '<img src=x onerror="document.title=1">';
      await page.getByRole("button", { name: "Save search" }).click();
      await dialog.getByRole("textbox", { name: "Name" }).fill(hostile);
      await dialog.getByRole("button", { name: "Save" }).click();
      await page.getByText(hostile, { exact: true }).waitFor();
      expect(await page.locator("main img[src=x]").count()).toBe(0);
      await page.getByRole("button", { name: `Delete saved search ${hostile}` }).click();
      await page.getByRole("button", { name: `Delete saved search ${hostile}` }).waitFor({ state: "detached" });

      await page.reload();
      await page.getByRole("button", { name: "Delete saved search Files, last quarter" }).click();
      await page.getByText("No saved searches yet.").waitFor();
      await page.reload();
      await page.getByText("No saved searches yet.").waitFor();
      expect(await setting()).toEqual({ saved_searches: [] });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("exports each section as a JSON file holding exactly the section's total", async () => {
    const { context, page, problems } = await open();
    try {
      await signIn(page, app.url, "/explore");
      await search(page, "Cerber OR type:domain OR type:link");
      const [events, attributes] = [await apiTotal("events", "Cerber OR type:domain OR type:link"), await apiTotal("attributes", "Cerber OR type:domain OR type:link")];
      expect(events).toBe(1);
      expect(attributes).toBeGreaterThan(20); // more than a page: the file is not the page shown
      await waitTotals(page, events, attributes);
      for (const [target, want] of [["events", events], ["attributes", attributes]] as const) {
        const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: `Export ${target} as JSON` }).click()]);
        expect(download.suggestedFilename()).toBe(`${target}-export.json`);
        const hits = JSON.parse(fs.readFileSync((await download.path())!, "utf8")) as { _id: string; _source: Record<string, unknown> }[];
        expect(hits).toHaveLength(want);
        expect(new Set(hits.map((h) => h._id)).size).toBe(want);
        const shown = Number((await total(page, target).innerText()).split(" ")[0]);
        expect(hits).toHaveLength(shown);
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("retries a search refused by the per-user search limit (429) and shows its results once a slot is free", async () => {
    const { context, page, problems } = await open();
    const limiter = searchLimiterOf(app.booted.ctx);
    const held: (() => void)[] = [];
    try {
      await signIn(page, app.url, "/events");
      // Every slot of the user is taken (their other searches, an export streaming elsewhere).
      for (let i = 0; i < 2; i++) held.push(await limiter.acquire({ userId: admin.id } as Principal));
      await page.getByRole("link", { name: "Explore" }).first().click();
      await page.getByRole("status", { name: "Searching attributes" }).waitFor();
      await page.waitForTimeout(1_500);
      expect(await page.getByRole("alert").count()).toBe(0);
      held.splice(0).forEach((release) => release());
      await waitTotals(page, 4, 102);
      expect(await page.getByRole("alert").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      held.forEach((release) => release());
      await context.close();
    }
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation at ${WIDTHS[width].width} px, with results, an error and the syntax help`, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, app.url, "/explore");
        await waitTotals(page, 4, 102);
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "explore", width);
        await page.getByRole("combobox", { name: "Time range" }).selectOption("absolute");
        await page.getByLabel("From").fill("2016-01-01T00:00");
        await page.getByRole("button", { name: "Query syntax help" }).click();
        await search(page, BAD_QUERY);
        await page.getByTestId("query-error-mark").waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "explore-error", width);
        await page.getByRole("tab", { name: "Bulk lookup" }).click();
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
