/**
 * Feeds in the browser: the real MISP feed sample zipped and uploaded through the form with a
 * progress bar, ingested (the run's live state and counts), searchable through the API, fetched
 * again with "Fetch now", previewed, with its run history; axe and screenshots at both widths.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { zip } from "../support/archives.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

/** Four events of the Infoblox sample, as test/integration/feeds.test.ts uses. */
const SAMPLE = ["0dbb179a", "24e799ca", "dad88707", "aacc7574"];

let app: TestApp;
let admin: TestUser;
let browser: Browser;
let archivePath: string;
let events: { uuid: string; info: string; values: string[] }[];
let feedId: number;

function sampleArchive(): Buffer {
  const dir = sharedPath("misp-feed-sample");
  const files = SAMPLE.map((prefix) => {
    const name = fs.readdirSync(dir).find((f) => f.startsWith(prefix))!;
    return { name, json: fs.readFileSync(path.join(dir, name), "utf8") };
  });
  events = files.map((f) => {
    const e = JSON.parse(f.json).Event;
    return { uuid: e.uuid, info: e.info, values: (e.Attribute ?? []).map((a: { value: string }) => a.value) };
  });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const ours = Object.fromEntries(events.map((e) => [e.uuid, manifest[e.uuid]]));
  return zip([{ name: "manifest.json", data: JSON.stringify(ours) }, ...files.map((f) => ({ name: f.name, data: f.json }))]);
}

async function searchTotal(query: string): Promise<number> {
  const res = await app.http.get(`/attributes/search?query=${encodeURIComponent(query)}&size=1`, { token: admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body.total;
}

/** Values of the upload's progress bar until the upload's preview shows. */
async function watchProgress(page: Page): Promise<number[]> {
  const seen: number[] = [];
  const bar = page.getByRole("progressbar", { name: "Upload progress" });
  const preview = page.getByRole("region", { name: "Preview of the upload" });
  while ((await preview.count()) === 0) {
    const value = await bar.getAttribute("aria-valuenow", { timeout: 50 }).catch(() => null);
    if (value !== null && seen.at(-1) !== Number(value)) seen.push(Number(value));
    await page.waitForTimeout(20);
  }
  return seen;
}

beforeAll(async () => {
  app = await startTestApp("web-feeds", { ROLE: "all" });
  admin = await loginAdmin(app);
  browser = await launchBrowser();
  archivePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "web-feeds-")), "infoblox-sample.zip");
  fs.writeFileSync(archivePath, sampleArchive());
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (archivePath) fs.rmSync(path.dirname(archivePath), { recursive: true, force: true });
});

describe("feeds in the browser", () => {
  it("uploads the feed sample with a progress bar, ingests it with live counts, and its values are searchable", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    try {
      await signIn(page, app.url, "/feeds");
      await page.getByText("No feeds yet").waitFor();
      await page.getByRole("radio", { name: "Upload a file" }).check();
      await page.getByRole("textbox", { name: "Feed name" }).fill("Infoblox sample (browser)");
      await page.getByRole("textbox", { name: "Provider" }).fill("Infoblox");
      await page.getByRole("combobox", { name: "Format" }).selectOption("SHARING");
      await page.locator('input[type="file"]').setInputFiles(archivePath);
      // Slow the upload down so its progress can be seen moving (about 2 s for the archive).
      const cdp = await context.newCDPSession(page);
      const size = fs.statSync(archivePath).size;
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: Math.ceil(size / 2) });
      await page.getByRole("button", { name: "Upload and preview" }).click();
      const progress = await watchProgress(page);
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      expect(progress.length, `progress seen: ${progress.join(", ")}`).toBeGreaterThan(1);
      expect(progress.some((v) => v > 0 && v < 100), `progress seen: ${progress.join(", ")}`).toBe(true);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(100);
      // Previewed before anything is ingested: the archive's events, counted by the upload.
      await page.getByText(`The archive holds ${events.length} events.`).waitFor();
      await page.getByRole("button", { name: "Create feed" }).click();

      // The feed page follows the ingestion run the creation started, to its counts.
      await page.waitForURL(/\/feeds\/\d+\?run=/);
      feedId = Number(new URL(page.url()).pathname.split("/").pop());
      await page.getByRole("heading", { name: "Infoblox sample (browser)", level: 1 }).waitFor();
      const fetchSection = page.getByRole("region", { name: "Fetch", exact: true });
      await fetchSection.getByText("succeeded", { exact: true }).waitFor({ timeout: 60_000 });
      const created = fetchSection.locator("dt", { hasText: "Events created" }).locator("xpath=following-sibling::dd[1]");
      expect(await created.textContent()).toBe(String(events.length));

      // Ingested through the normal write path: the values are found by search.
      await settled(app, 60_000);
      for (const e of events.filter((x) => x.values.length > 0).slice(0, 2)) {
        expect(await searchTotal(`value:"${e.values[0]}"`), e.values[0]).toBeGreaterThan(0);
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("fetches again with live progress, previews the manifest and lists the runs", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    try {
      await signIn(page, app.url, `/feeds/${feedId}`);
      const history = page.getByRole("region", { name: "Run history", exact: true });
      await history.getByRole("row").nth(1).waitFor();
      expect(await history.getByRole("row").count()).toBe(2);

      await page.getByRole("button", { name: "Fetch now" }).click();
      const fetchSection = page.getByRole("region", { name: "Fetch", exact: true });
      await fetchSection.getByText("succeeded", { exact: true }).waitFor({ timeout: 60_000 });
      const unchanged = fetchSection.locator("dt", { hasText: "Events unchanged" }).locator("xpath=following-sibling::dd[1]");
      expect(await unchanged.textContent()).toBe(String(events.length));
      // The finished run joins the history.
      await expect.poll(() => history.getByRole("row").count(), { timeout: 10_000 }).toBe(3);
      await history.getByText("manual").first().waitFor();

      await page.getByRole("button", { name: "Preview the source" }).click();
      const preview = page.getByRole("region", { name: "Preview", exact: true });
      for (const e of events) await preview.getByRole("cell", { name: e.uuid }).waitFor();
      expect(await preview.getByRole("cell", { name: events[0].info }).count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("creates a network feed, schedules it, replaces the uploaded feed's file, and deletes the network feed", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, "/feeds");
      await page.getByRole("textbox", { name: "Feed name" }).fill("Abuse list (browser)");
      await page.getByRole("textbox", { name: "Provider" }).fill("abuse.example");
      await page.getByRole("combobox", { name: "Format" }).selectOption("FREETEXT");
      await page.getByRole("textbox", { name: "Feed URL" }).fill("https://feeds.example.org/abuse.txt");
      await page.getByRole("combobox", { name: "Tags for its events" }).fill("feed:abuse");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Create feed" }).click();
      await page.getByRole("heading", { name: "Abuse list (browser)", level: 1 }).waitFor();
      const id = Number(new URL(page.url()).pathname.split("/").pop());
      const created = await app.http.get(`/feeds/${id}`, { token: admin.token });
      expect(created.body).toMatchObject({ input_source: "network", source_format: "freetext", url: "https://feeds.example.org/abuse.txt", enabled: false, tags: ["feed:abuse"] });

      await page.getByRole("switch", { name: "Fetch on its schedule" }).click({ force: true });
      await expect.poll(async () => (await app.http.get(`/feeds/${id}`, { token: admin.token })).body.enabled).toBe(true);
      await page.getByRole("button", { name: "Delete feed" }).click();
      await page.getByRole("button", { name: "Delete for good: feed Abuse list (browser)" }).click();
      await page.waitForURL(/\/feeds$/);
      expect((await app.http.get(`/feeds/${id}`, { token: admin.token })).status).toBe(404);

      // A CSV upload is previewed row by row before a feed exists: value and detected type.
      const csvPath = path.join(path.dirname(archivePath), "indicators.csv");
      fs.writeFileSync(csvPath, "ip,comment\n198.51.100.23,c2\nmalware-c2.net,beacon\nnot an indicator,x\n");
      await page.getByRole("radio", { name: "Upload a file" }).check();
      await page.getByRole("combobox", { name: "Format" }).selectOption("CSV");
      await page.locator('input[type="file"]').setInputFiles(csvPath);
      await page.getByRole("switch", { name: "First row is a header" }).click({ force: true });
      await page.getByRole("button", { name: "Upload and preview" }).click();
      const rows = page.getByRole("region", { name: "Preview of the upload" });
      await rows.getByRole("cell", { name: "198.51.100.23", exact: true }).waitFor();
      await rows.getByText("ip-dst").first().waitFor();
      await rows.getByRole("cell", { name: "malware-c2.net", exact: true }).waitFor();
      await rows.getByText("domain", { exact: true }).waitFor();
      // The header row is not read as data; the row that is no indicator is shown as rejected.
      expect(await rows.getByRole("cell", { name: "ip", exact: true }).count()).toBe(0);
      await rows.getByRole("cell", { name: "rejected", exact: true }).waitFor();

      // The uploaded feed's file replaced: a new upload key, read by the next fetch.
      const before = (await app.http.get(`/feeds/${feedId}`, { token: admin.token })).body.url as string;
      await page.goto(`${app.url}/feeds/${feedId}`);
      await page.locator('input[type="file"]').setInputFiles(archivePath);
      await page.getByRole("button", { name: "Replace the file" }).click();
      await page.getByText("The file was replaced: the next fetch reads it.").waitFor();
      const after = (await app.http.get(`/feeds/${feedId}`, { token: admin.token })).body.url as string;
      expect(after).toMatch(/^feed-uploads\/[0-9a-f-]{36}$/);
      expect(after).not.toBe(before);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation on the feed pages at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      try {
        await signIn(page, app.url, "/feeds");
        await page.getByRole("link", { name: "Infoblox sample (browser)" }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        // The upload form's own controls too.
        await page.getByRole("radio", { name: "Upload a file" }).check();
        await page.getByText("Accepted: .csv,.txt").waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "feeds", width);
        await page.getByRole("link", { name: "Infoblox sample (browser)" }).click();
        await page.getByRole("heading", { name: "Run history" }).waitFor();
        await page.getByRole("region", { name: "Run history", exact: true }).getByText("succeeded").first().waitFor();
        await page.getByRole("button", { name: "Preview the source" }).click();
        await page.getByRole("cell", { name: events[0].uuid }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "feed", width);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
