import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { connectMcp } from "../support/mcp-client.ts";

describe("the AI assistants page: an MCP client configuration, shown once", () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp("web-assistants");
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("creates a configuration whose token an MCP client can use, gone after a reload, and revokes it", async () => {
    const { context, page, problems } = await openPage(browser);
    const clients: Client[] = [];
    try {
      await signIn(page, app.url, "/assistants");
      await page.getByRole("combobox", { name: "Valid for" }).selectOption({ label: "1 day" });
      await page.getByRole("button", { name: "Create MCP configuration" }).click();
      const text = await page.getByTestId("mcp-config").innerText();
      const config = JSON.parse(text);
      const server = Object.values(config.mcpServers)[0] as { url?: string; headers?: Record<string, string> };
      const token = JSON.stringify(server).match(/[0-9a-f]{40}/)![0];
      const mcp = await connectMcp(app.url, token, clients);
      expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("search_attributes");
      await expect(page.getByText(/shown only now/).isVisible()).resolves.toBe(true);

      await page.reload();
      await page.getByRole("button", { name: "Create MCP configuration" }).waitFor();
      expect(await page.getByTestId("mcp-config").count()).toBe(0);
      expect(await page.content()).not.toContain(token);

      // A second configuration, revoked from the page: its token stops working.
      await page.getByRole("button", { name: "Create MCP configuration" }).click();
      const second = (await page.getByTestId("mcp-config").innerText()).match(/[0-9a-f]{40}/)![0];
      await page.getByRole("button", { name: "Revoke this credential" }).click();
      await page.getByRole("button", { name: "Revoked" }).waitFor();
      const refused = await fetch(`${app.url}/auth/whoami`, { headers: { authorization: `Bearer ${second}` } });
      expect(refused.status).toBe(401);
      expect(problems).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await context.close();
    }
  });

  for (const width of Object.keys(WIDTHS) as Width[]) {
    it(`has no serious accessibility violation at ${WIDTHS[width].width} px`, async () => {
      const { context, page, problems } = await openPage(browser, width);
      try {
        await signIn(page, app.url, "/assistants");
        await page.getByRole("button", { name: "Create MCP configuration" }).click();
        await page.getByTestId("mcp-config").waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, "assistants", width);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
