import fs from "node:fs";
import path from "node:path";
import axe from "axe-core";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { WEB_APP_DIR } from "../../src/web-app-host.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "./app.ts";

/** Debian's Chromium, as DEVELOPERS.md and .ci/run set it up. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"];

/** The two widths every page is checked and photographed at. */
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
export type Width = keyof typeof WIDTHS;

/** Kept by the test run for a reviewer: one PNG per page and width. */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../test-results/screenshots");

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(path.join(WEB_APP_DIR, "index.html"))) throw new Error(`the web UI is not built in ${WEB_APP_DIR}: run npm run build:web`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP refusals seen so far: a page that logs one is broken. */
  problems: string[];
}

export async function openPage(browser: Browser, width: Width = "desktop"): Promise<UiPage> {
  const context = await browser.newContext({ viewport: WIDTHS[width], acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    // A failed fetch the UI handles (a 4xx it shows) is logged by Chromium as a console error too.
    if (m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  return { context, page, problems };
}

export async function signIn(page: Page, baseUrl: string, at = "/explore", email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}${at}`);
  await page.getByRole("textbox", { name: "E-mail" }).fill(email);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** axe-core's serious and critical violations on the page as it is now (none is the goal). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await transitionsSettled(page);
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axe.source);
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }),
  )) as axe.AxeResults;
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

/**
 * Waits for the page's finite CSS transitions and animations to end: axe measures colours as
 * painted, and a drawer or modal caught fading in fails the contrast rule (a CI run did). Spinners
 * (infinite) are left running.
 */
async function transitionsSettled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
    for (let round = 0; round < 10; round++) {
      // Two frames: a transition the last render asked for is created at the next style recalculation.
      await frame();
      await frame();
      const running = document.getAnimations().filter((a) => a.playState === "running" && a.effect?.getComputedTiming().endTime !== Infinity);
      if (running.length === 0) return;
      await Promise.all(running.map((a) => a.finished.catch(() => undefined)));
    }
  });
}

export async function screenshot(page: Page, name: string, width: Width): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${WIDTHS[width].width}.png`), fullPage: true });
}
