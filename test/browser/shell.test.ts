import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { loginAdmin } from "../support/fixtures.ts";

const NAVIGATE = { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document", accept: "text/html" };

/** A browser's page navigation (fetch() cannot send it: it sets Sec-Fetch-Mode itself). */
function navigate(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: NAVIGATE }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on("error", reject);
  });
}

describe("the web UI's shell: serving, sign-in, session", () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp("web-shell");
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("serves the app to a browser's navigation and leaves every API path unchanged for programs", async () => {
    const api = await fetch(`${app.url}/events/`);
    expect(api.status).toBe(401);
    expect(api.headers.get("content-type")).toMatch(/application\/json/);

    for (const path of ["/", "/explore", "/events/", "/events/6f0c1a8e-0000-4000-8000-000000000000", "/no-such-page"]) {
      const page = await navigate(`${app.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      const html = page.text;
      expect(html).toContain('<div id="root">');
      // No inline script: every <script> loads a file.
      expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    }
    // GraphiQL, the OpenAPI document and health stay what they are for a browser too.
    expect((await navigate(`${app.url}/openapi.json`)).headers["content-type"]).toMatch(/json/);
    expect((await fetch(`${app.url}/no-such-page`)).status).toBe(404);

    const { text: html } = await navigate(`${app.url}/`);
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)![1];
    const asset = await fetch(`${app.url}${script}`, { headers: { "accept-encoding": "gzip" } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-encoding")).toBe("gzip");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${app.url}/assets/../../package.json`)).status).toBe(404);
  });

  it("keeps the refresh token out of the page's reach: HttpOnly, SameSite=Strict, limited to the refresh route", async () => {
    const form = new URLSearchParams({ username: "admin@example.test", password: "admin-password-1", refresh_cookie: "true" });
    const res = await fetch(`${app.url}/auth/token`, { method: "POST", body: form });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.access_token).toBeTruthy();
    expect(body.refresh_token).toBeUndefined();
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^wb_refresh=[A-Za-z0-9_-]{20,}; Path=\/auth\/refresh; Max-Age=604800; HttpOnly; SameSite=Strict$/);

    const value = cookie.split(";")[0];
    const refreshed = await fetch(`${app.url}/auth/refresh`, { method: "POST", headers: { cookie: value, "content-type": "application/json" }, body: "{}" });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).refresh_token).toBeUndefined();
    const rotated = refreshed.headers.get("set-cookie") ?? "";
    expect(rotated.split(";")[0]).not.toBe(value);
    // The old cookie was single use: presenting it again revokes the family and clears the cookie.
    const replay = await fetch(`${app.url}/auth/refresh`, { method: "POST", headers: { cookie: value, "content-type": "application/json" }, body: "{}" });
    expect(replay.status).toBe(401);
    expect(replay.headers.get("set-cookie")).toMatch(/^wb_refresh=; Path=\/auth\/refresh; Max-Age=0/);
    // Without a cookie or a token the refresh route says what is missing.
    const none = await fetch(`${app.url}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(none.status).toBe(422);
    expect((await none.json()).detail[0].loc).toEqual(["body", "refresh_token"]);
    // Behind HTTPS (PUBLIC_URL) the cookie is Secure.
    const https = await startTestApp("web-shell-https", { PUBLIC_URL: "https://workbench.example.test" });
    try {
      const secure = await fetch(`${https.url}/auth/token`, { method: "POST", body: form });
      expect(secure.headers.get("set-cookie")).toMatch(/; Secure$/);
    } finally {
      await https.close();
    }
  });

  it("signs in on the page asked for, survives a reload without the password, and signs out for good", async () => {
    const { context, page, problems } = await openPage(browser);
    try {
      await page.goto(`${app.url}/events`);
      await expect(page.getByRole("heading", { name: "Sign in to TI Workbench" }).isVisible()).resolves.toBe(true);
      await page.getByRole("textbox", { name: "E-mail" }).fill("admin@example.test");
      await page.getByRole("textbox", { name: "Password", exact: true }).fill("wrong-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").filter({ hasText: "Incorrect username or password" }).waitFor();

      await signIn(page, app.url, "/events");
      expect(new URL(page.url()).pathname).toBe("/events");
      expect(await page.evaluate(() => document.cookie)).not.toContain("wb_refresh");
      const [cookie] = (await context.cookies()).filter((c) => c.name === "wb_refresh");
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/auth/refresh" });

      await page.reload();
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      expect(await page.getByRole("textbox", { name: "E-mail" }).count()).toBe(0);

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await page.reload();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("brings an expired session back to sign-in on the same page, and back to work after", async () => {
    const { context, page } = await openPage(browser);
    try {
      await signIn(page, app.url, "/hunts");
      // Every session of the user ends elsewhere (another tab signs out): the page's token is refused.
      const other = await loginAdmin(app);
      expect((await app.http.post("/auth/logout", { token: other.token })).status).toBe(204);
      // The page learns of it at its next request (the link below) or by itself first, when its live
      // connection is refused (a fast service answers before the click): either way on the page it is on.
      const ended = page.getByText("Your session has ended. Sign in again to continue.");
      const at = await Promise.race([
        ended.waitFor().then(() => new URL(page.url()).pathname),
        page
          .getByRole("link", { name: "Events" })
          .first()
          .click()
          .then(async () => (await ended.waitFor(), "/events"))
          .catch(() => new Promise<never>(() => undefined)),
      ]);
      expect(["/hunts", "/events"]).toContain(at);
      expect(new URL(page.url()).pathname).toBe(at);
      await signIn(page, app.url, at);
      expect(new URL(page.url()).pathname).toBe(at);
    } finally {
      await context.close();
    }
  });

  it("refreshes the access token before it expires, so an idle page keeps working past the token's lifetime", async () => {
    // 40 s: the page's timer refreshes at its floor of 5 s (a minute before expiry), while the
    // request-side refresh (under 30 s left) stays out of the first 10 s, the page's own requests after
    // sign-in. Without the timer no refresh comes before the token expires: nothing asks for one.
    const ttl = 40;
    const short = await startTestApp("web-shell-ttl", { ACCESS_TOKEN_TTL_SECONDS: String(ttl) });
    const { context, page, problems } = await openPage(browser);
    try {
      const admin = await loginAdmin(short);
      const info = `Token refresh check ${Date.now()}`;
      expect((await short.http.post("/events/", { token: admin.token, json: { info, distribution: 0 } })).status).toBe(201);

      const refused: string[] = [];
      const graphqlTokens: { at: number; authorization: string | undefined }[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).pathname === "/graphql") graphqlTokens.push({ at: Date.now(), authorization: r.headers().authorization });
      });
      page.on("response", (r) => {
        if (r.status() === 401) refused.push(`${r.request().method()} ${r.url()}`);
      });
      const issued = page.waitForResponse((r) => new URL(r.url()).pathname === "/auth/token" && r.ok());
      await signIn(page, short.url, "/hunts");
      const answer = (await (await issued).json()) as { access_token: string; expires_in: number };
      expect(answer.expires_in).toBe(ttl);
      // Measured after the answer arrived: the token's real expiry is no later than this.
      const expiresAt = Date.now() + ttl * 1000;

      // The page idles: its timer alone refreshes, and before the first token expires (the refresh at
      // page load, before sign-in, is not counted: this waits from here on).
      await page.waitForRequest((r) => new URL(r.url()).pathname === "/auth/refresh" && r.method() === "POST", { timeout: ttl * 1000 });
      expect(Date.now()).toBeLessThan(expiresAt);

      await page.waitForTimeout(expiresAt - Date.now() + 2_000);
      // The first token is really dead now; the page works on with a refreshed one.
      expect((await short.http.get("/events/", { token: answer.access_token })).status).toBe(401);
      const clicked = Date.now();
      await page.getByRole("link", { name: "Events" }).first().click();
      await page.getByRole("table", { name: "Events" }).getByText(info).waitFor();
      const after = graphqlTokens.filter((r) => r.at >= clicked);
      expect(after.length).toBeGreaterThan(0);
      for (const r of after) expect(r.authorization).toMatch(/^Bearer /);
      expect(after.map((r) => r.authorization)).not.toContain(`Bearer ${answer.access_token}`);
      expect(new URL(page.url()).pathname).toBe("/events");
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
      expect(await page.getByText("Your session has ended. Sign in again to continue.").count()).toBe(0);
      expect(refused).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await short.close();
    }
  }, 120_000);

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation on sign-in and the shell at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      try {
        await page.goto(`${app.url}/explore`);
        await page.getByRole("button", { name: "Sign in" }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "sign-in", width);
        await signIn(page, app.url, "/explore");
        expect(await accessibilityViolations(page)).toEqual([]);
        if (width === "phone") {
          await page.getByRole("button", { name: "Open navigation" }).click();
          await page.getByRole("link", { name: "Feeds" }).click();
          expect(new URL(page.url()).pathname).toBe("/feeds");
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
