/**
 * Web UI benchmark (issue 24): the analysts' first page in headless Chromium against the real service.
 *
 * 1. Cold load of /explore for a signed-in user (a fresh browser context each run: empty cache, the
 *    refresh cookie of a new sign-in): from navigation start to interactive (the Query box rendered
 *    and enabled), median of `--runs` (default 10); and the JavaScript transferred for it (gzip, as
 *    served: the resource timings' encoded body sizes of every script).
 * 2. Enter to rendered results: a query with 100 attributes per page over `--attributes` (default
 *    1 000 000) attribute documents in OpenSearch (generated from the real value distributions by
 *    ./search-data.ts, indexed directly). Measured in the page: the moment the last search answer
 *    arrived (resource timing responseEnd) to the frame in which the 100th row is in the table;
 *    and Enter to that frame. Median of `--runs`.
 *
 *   npx tsx bench/web.ts                       # 1 000 000 attributes (indexing takes a few minutes)
 *   npx tsx bench/web.ts --attributes 100000   # quick run
 *
 * Goals: interactive < 1.5 s, < 350 KB of JavaScript for the first route, results rendered < 150 ms
 * after the API answers. Needs the test PostgreSQL, OpenSearch (OPENSEARCH_URL, default
 * http://127.0.0.1:9200), the built UI (npm run build:web) and Chromium. Prints JSON on stdout.
 */
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import setupTemplate from "../test/support/global-setup.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, type TestApp } from "../test/support/app.ts";
import { launchBrowser } from "../test/support/browser.ts";
import type { Browser, Page } from "playwright-core";
import { median, round } from "./lib.ts";
import { generateEvents } from "./search-data.ts";

const { values } = parseArgs({ options: { attributes: { type: "string", default: "1000000" }, runs: { type: "string", default: "10" } } });
const ATTRIBUTES = Number(values.attributes);
const RUNS = Number(values.runs);
const PER_EVENT = 100;
const OPENSEARCH_URL = process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200";

const log = (m: string) => process.stderr.write(`[bench/web] ${m}\n`);

async function indexDocuments(app: TestApp): Promise<void> {
  const search = app.booted.ctx.search;
  let attributes: Parameters<typeof search.bulkIndex>[1] = [];
  let events: Parameters<typeof search.bulkIndex>[1] = [];
  let done = 0;
  const started = Date.now();
  const flush = async () => {
    if (attributes.length) await search.bulkIndex("svc-attributes", attributes);
    if (events.length) await search.bulkIndex("svc-events", events);
    done += attributes.length;
    attributes = [];
    events = [];
  };
  for (const g of generateEvents({ events: Math.ceil(ATTRIBUTES / PER_EVENT), attributesPerEvent: PER_EVENT })) {
    events.push(g.event);
    attributes.push(...g.attributes);
    if (attributes.length >= 5_000) {
      await flush();
      if (done % 100_000 === 0) log(`indexed ${done} attributes (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
    }
  }
  await flush();
  await search.refresh();
  log(`indexed ${done} attributes in ${round((Date.now() - started) / 1000, 1)} s`);
}

/** A fresh context holding the refresh cookie of a new sign-in, as a returning analyst's browser would. */
async function signedInPage(browser: Browser, app: TestApp): Promise<Page> {
  const res = await fetch(`${app.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD, refresh_cookie: "true" }) });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name, value, url: `${app.url}/auth/refresh`, httpOnly: true, sameSite: "Strict" }]);
  return context.newPage();
}

/**
 * In the page: resolves with performance.now() at the first frame where the expression holds. A
 * string, not a function: tsx's compiled functions reference a helper the page lacks, and the
 * page's CSP forbids new Function.
 */
const atFrame = (page: Page, ready: string) =>
  page.evaluate(`new Promise((resolve) => { const check = () => ((${ready}) ? resolve(performance.now()) : requestAnimationFrame(check)); check(); })`) as Promise<number>;

async function coldLoad(browser: Browser, app: TestApp): Promise<{ interactiveMs: number; scriptBytes: number; scripts: number }> {
  const page = await signedInPage(browser, app);
  try {
    await page.goto(`${app.url}/explore`, { waitUntil: "commit" });
    const interactiveMs = await atFrame(page, `(() => { const q = document.querySelector('input[aria-label="Query"], textarea[aria-label="Query"], [role="combobox"][aria-label="Query"]') ?? [...document.querySelectorAll("label")].find((l) => l.textContent?.trim() === "Query")?.control; return !!q && !q.disabled; })()`);
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .filter((e) => (e as PerformanceResourceTiming).initiatorType === "script" || e.name.endsWith(".js"))
        .map((e) => (e as PerformanceResourceTiming).encodedBodySize),
    );
    return { interactiveMs, scriptBytes: scripts.reduce((a, b) => a + b, 0), scripts: scripts.length };
  } finally {
    await page.context().close();
  }
}

/** The queries pressed Enter on, in turn: a type over most of the corpus, a wildcard, a phrase. */
const RESULT_QUERIES = ["type:domain", "value:*.com", 'category:"Network activity"'];

async function resultsRender(browser: Browser, app: TestApp, run: number): Promise<{ afterApiMs: number; enterMs: number; apiMs: number; rows: number }> {
  const page = await signedInPage(browser, app);
  try {
    const box = page.getByRole("combobox", { name: "Query" }).or(page.getByRole("textbox", { name: "Query" }));
    await page.goto(`${app.url}/explore`);
    // Signed in (the refresh cookie rotated) before the reload that applies the page size.
    await box.waitFor();
    await page.evaluate(() => window.localStorage.setItem("explore.page_size.attributes", "100"));
    await page.reload();
    await box.fill(RESULT_QUERIES[run % RESULT_QUERIES.length]!);
    await page.evaluate(() => {
      document.addEventListener("keydown", (e) => e.key === "Enter" && ((window as unknown as { enterAt: number }).enterAt = performance.now()), { capture: true, once: true });
    });
    await box.press("Enter");
    const rendered = await atFrame(page, `document.querySelectorAll('section[aria-labelledby="explore-attributes"] tbody tr').length >= 100`);
    // urql sends queries as GET within the URL limit, so the operation's name is in its resource
    // timing entry, on the page's own clock.
    const timing = await page.evaluate(() => {
      const enterAt = (window as unknown as { enterAt: number }).enterAt;
      const entries = performance
        .getEntriesByType("resource")
        .filter((e) => e.name.includes("ExploreSearchAttributes") && e.startTime >= enterAt) as PerformanceResourceTiming[];
      const last = entries[entries.length - 1];
      return {
        enterAt,
        requestStart: last?.requestStart ?? NaN,
        responseEnd: last?.responseEnd ?? NaN,
        rows: document.querySelectorAll('section[aria-labelledby="explore-attributes"] tbody tr').length,
      };
    });
    const { enterAt, requestStart, responseEnd, rows } = timing;
    return { afterApiMs: rendered - responseEnd, enterMs: rendered - enterAt, apiMs: responseEnd - requestStart, rows };
  } finally {
    await page.context().close();
  }
}

async function main(): Promise<void> {
  await setupTemplate();
  const prefix = `bench-web-${crypto.randomBytes(4).toString("hex")}-`;
  const app = await startTestApp("bench_web", { OPENSEARCH_URL, OPENSEARCH_INDEX_PREFIX: prefix });
  const browser = await launchBrowser();
  try {
    const loads = [];
    for (let i = 0; i < RUNS; i++) loads.push(await coldLoad(browser, app));
    const interactive = loads.map((l) => l.interactiveMs);
    log(`cold load: median ${round(median(interactive))} ms, JavaScript ${round(loads[0]!.scriptBytes / 1024, 1)} KB in ${loads[0]!.scripts} files`);

    await indexDocuments(app);
    const renders = [];
    for (let i = 0; i < RUNS; i++) renders.push(await resultsRender(browser, app, i));
    const result = {
      bench: "web",
      command: `npx tsx bench/web.ts ${process.argv.slice(2).join(" ")}`.trim(),
      attributes: ATTRIBUTES,
      runs: RUNS,
      coldLoad: { interactiveMedianMs: round(median(interactive)), interactiveMs: interactive.map((x) => round(x)), javascriptKB: round(loads[0]!.scriptBytes / 1024, 1), scripts: loads[0]!.scripts },
      results: {
        renderAfterApiMedianMs: round(median(renders.map((r) => r.afterApiMs)), 1),
        enterToRenderedMedianMs: round(median(renders.map((r) => r.enterMs))),
        apiMedianMs: round(median(renders.map((r) => r.apiMs))),
        rows: renders[0]!.rows,
      },
      goals: { interactiveMs: 1500, javascriptKB: 350, renderAfterApiMs: 150 },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await browser.close();
    await app.close();
    // Deletes only what this run created.
    await fetch(`${OPENSEARCH_URL}/${prefix}*`, { method: "DELETE" });
  }
}

await main();
