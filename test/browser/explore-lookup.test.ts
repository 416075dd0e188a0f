/**
 * Explore's histogram and bulk lookup in the browser, through the real /explore page, against the
 * real service (ROLE=all) with real MISP feed events of ../shared/data: the chart's text
 * alternative and table equal to the API's totals, an absolute range counted per week, the lookup
 * of defanged indicators with its found/not found badges and event links, a list over the limit
 * refused in the page; axe and screenshots at 1280 and 390 px.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // comalign.pro
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4"; // 210 attributes, 2022-08-30 .. 2024-02-12
const feedEvent = (uuid: string) => JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8"));

describe("Explore's histogram and bulk lookup in the browser", () => {
  let app: TestApp;
  let admin: TestUser;
  let checker: TestUser; // the API's totals, without taking the page's concurrent-search slots
  let browser: Browser;
  let defanged: string;

  const apiTotal = async (target: "events" | "attributes", query: string) => {
    const res = await app.http.get(`/${target}/search?size=1&query=${encodeURIComponent(query)}`, { token: checker.token });
    expect(res.status, res.text).toBe(200);
    return res.body.total as number;
  };
  const open = async (width: Width) => {
    const opened = await openPage(browser, width);
    opened.page.setDefaultTimeout(15_000);
    return opened;
  };
  /** The sums of the chart's table (the text alternative), per column. */
  const tableSums = (page: Page) =>
    page.getByRole("table", { name: /^Matches per/ }).evaluate((table) => {
      const rows = [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => Number(td.textContent)));
      return rows.reduce((sum, r) => sum.map((s, i) => s + (r[i] ?? 0)), [0, 0]);
    });
  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  beforeAll(async () => {
    app = await startTestApp("web-explore-lookup", { ROLE: "all" });
    admin = await loginAdmin(app);
    checker = await createUser(app, admin, admin.roleId);
    for (const uuid of [VOLTA, METACOIN]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: feedEvent(uuid) });
      expect(res.status, res.text).toBe(201);
    }
    const event = await app.http.post("/events/", { token: admin.token, json: { info: "Defanged indicators <b>seen</b>", distribution: 0 } });
    defanged = event.body.uuid;
    for (const [type, value] of [["url", "http://evil.com"], ["ip-dst", "1.2.3.4"]]) {
      expect((await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: defanged, type, value } })).status).toBe(201);
    }
    await settled(app);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it.each(Object.keys(WIDTHS) as Width[])("charts the matches of both indices over time with their totals as text (%s)", async (width) => {
    const { context, page, problems } = await open(width);
    await signIn(page, app.url, "/explore");
    const [events, attributes] = [await apiTotal("events", "*"), await apiTotal("attributes", "*")];
    expect(attributes).toBeGreaterThan(230);
    // All time: from the earliest match (2022) to now, counted per month for both indices.
    const chart = page.getByRole("img", { name: new RegExp(`^Matches over time: ${events} events, ${attributes} attributes between .+, per month$`) });
    await chart.waitFor();
    await chart.locator("canvas").first().waitFor(); // uPlot, loaded with the chart
    expect(await tableSums(page)).toEqual([events, attributes]);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await screenshot(page, "explore-histogram", width);

    // An absolute range in the address (a shared link): METACOIN's weeks, nothing else in them.
    const range = JSON.stringify({ from: "2022-08-01T00:00:00.000Z", to: "2024-03-01T00:00:00.000Z" });
    await page.goto(`${app.url}/explore?q=${encodeURIComponent("type:domain")}&range=${encodeURIComponent(range)}`);
    const q = `(type:domain) AND @timestamp:[2022-08-01T00:00:00.000Z TO 2024-03-01T00:00:00.000Z]`;
    const weekly = page.getByRole("img", { name: /^Matches over time: .+, per week$/ });
    await weekly.waitFor();
    expect(await weekly.getAttribute("aria-label")).toContain(`${await apiTotal("attributes", q)} attributes`);
    expect((await tableSums(page))[1]).toBe(await apiTotal("attributes", q));
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each(Object.keys(WIDTHS) as Width[])("looks up pasted indicators, defanged, and links to the events holding them (%s)", async (width) => {
    const { context, page, problems } = await open(width);
    await signIn(page, app.url, "/explore");
    await page.getByRole("tab", { name: "Bulk lookup" }).click();
    const box = page.getByRole("textbox", { name: "Indicators, one per line" });
    // Over the limit: refused in the page, nothing sent.
    await box.fill(Array.from({ length: 1001 }, (_, i) => `value-${i}.example`).join("\n"));
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByText("At most 1,000 indicators at once (1,001 given).").waitFor();

    await box.fill(["hxxp://evil[.]com", "1.2.3[.]4", "COMALIGN[.]PRO", "", "not-there.example"].join("\n"));
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByTestId("lookup-summary").filter({ hasText: "3 of 4 found" }).waitFor();
    const table = page.getByRole("table");
    const row = (value: string) => table.getByRole("row").filter({ has: page.getByText(value, { exact: true }) });
    await expect(row("http://evil.com").getByText("Found", { exact: true }).count()).resolves.toBe(1);
    await expect(row("http://evil.com").getByText("given as hxxp://evil[.]com").count()).resolves.toBe(1);
    await expect(row("1.2.3.4").getByRole("link", { name: "Defanged indicators <b>seen</b>" }).getAttribute("href")).resolves.toBe(`/events/${defanged}`);
    await expect(row("comalign.pro").getByRole("link", { name: feedEvent(VOLTA).Event.info }).count()).resolves.toBe(1);
    await expect(row("not-there.example").getByText("Not found", { exact: true }).count()).resolves.toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await screenshot(page, "explore-lookup", width);

    // Only the absent ones; then follow an event link.
    await page.getByText("Not found", { exact: true }).first().click();
    await expect(table.getByRole("row").count()).resolves.toBe(2);
    await page.getByText("All", { exact: true }).click();
    await row("comalign.pro").getByRole("link").click();
    await page.waitForURL(`**/events/${VOLTA}`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
