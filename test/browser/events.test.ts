/**
 * The Events pages in Chromium against the real service, on real MISP events of ../shared/data:
 * a file import through the list page, the list's filters and server paging, an event page with its
 * retention badge on old data with retention on, ATT&CK techniques and objects, follow/unfollow,
 * publish, a sighting, soft delete and restore, an event and an attribute created through the forms
 * (a bad value shows the API's message at its field), the export download's content, axe at both
 * widths for the list, the event page and the forms, screenshots of each.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.ts";
import { accessibilityViolations, launchBrowser, openPage, screenshot, signIn, WIDTHS, type Width } from "../support/browser.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

type MispDoc = { Event: Record<string, any> };
const load = (file: string): MispDoc => JSON.parse(fs.readFileSync(sharedPath("misp-events", file), "utf8"));

const XORIST = load("57c4445b-c548-4654-af0b-4be3950d210f.json"); // 2016: expired
const BABYSHARK = load("pymisp-reportlab-image_event.json"); // 2019-02: within the warning days
const URSNIF = load("pymisp-reportlab-sighting_1.json"); // carries the exempt tag: no badge
const LONG = load("pymisp-reportlab-long_event.json"); // 370 attributes: several pages
const UPLOADED = "pymisp-reportlab-galaxy_1.json"; // imported through the UI
const PUBG = load(UPLOADED);

const PERIOD_DAYS = 3000;
const WARNING_DAYS = 365;
const EXEMPT = 'misp-galaxy:banker="Gozi"';
const FILLERS = 20;

let app: TestApp;
let admin: TestUser;
let browser: Browser;

const day = 86_400;
/** Days until expiry as retention defines it (last change + period), computed here from the JSON. */
const daysLeft = (doc: MispDoc) => (Number(doc.Event.timestamp) + PERIOD_DAYS * day - Date.now() / 1000) / day;

async function importDoc(doc: MispDoc): Promise<void> {
  const res = await app.http.post("/events/import?on_invalid=skip", { token: admin.token, json: doc });
  if (res.status !== 201) throw new Error(`import ${doc.Event.uuid}: ${res.status} ${res.text.slice(0, 300)}`);
}

async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await app.http.graphql<T>(query, variables, admin.token);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data as T;
}

/** Picks an option of a Mantine Select by its label. */
async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole("combobox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

const eventRows = (page: Page) => page.getByRole("table", { name: "Events" }).locator("tbody tr");

async function checkPage(page: Page, problems: string[], name: string, width: Width): Promise<void> {
  expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
  await screenshot(page, name, width);
  expect(problems).toEqual([]);
}

beforeAll(async () => {
  app = await startTestApp("web-events", { ROLE: "all" });
  admin = await loginAdmin(app);
  const retention = await app.http.post("/settings/runtime/retention", {
    token: admin.token,
    json: { enabled: true, period_days: PERIOD_DAYS, warning_days: WARNING_DAYS, exempt_tags: [EXEMPT] },
  });
  expect(retention.status, retention.text).toBe(200);
  await Promise.all([XORIST, BABYSHARK, URSNIF, LONG].map(importDoc));
  // One after the other: the list's order (newest change first) is theirs.
  for (let i = 1; i <= FILLERS; i++) {
    const res = await app.http.post("/events/", { token: admin.token, json: { info: `Paging filler ${i}`, distribution: 0 } });
    expect(res.status, res.text).toBe(201);
  }
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe("the Events pages", { timeout: 90_000 }, () => {
  it("imports a MISP event file through the list page, then filters and pages the list on the server", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    try {
      await signIn(page, app.url, "/events");
      await page.getByRole("heading", { name: "Events", level: 1 }).waitFor();
      await page.locator('input[type="file"]').setInputFiles(sharedPath("misp-events", UPLOADED));
      await page.getByRole("button", { name: "Import event" }).click();
      const done = page.getByRole("status").filter({ hasText: "Event imported" });
      await done.waitFor();
      await done.getByRole("link", { name: PUBG.Event.info }).waitFor();
      const stored = await gql(`query($u: String!) { event(uuid: $u) { info attributeCount objectCount } }`, { u: PUBG.Event.uuid });
      expect(stored.event).toEqual({ info: PUBG.Event.info, attributeCount: PUBG.Event.Attribute.length, objectCount: PUBG.Event.Object.length });

      // 4 imported by the API, 1 through the page, the fillers: 20 a page, newest change first.
      const total = 5 + FILLERS;
      await page.getByText(`Page 1 of 2 · ${total} events`).waitFor();
      expect(await eventRows(page).count()).toBe(20);
      await checkPage(page, problems, "events-list", "desktop");
      await page.setViewportSize(WIDTHS.phone);
      // At phone width the same page as cards.
      await page.getByRole("list", { name: "Events" }).waitFor();
      expect(await page.getByRole("list", { name: "Events" }).getByRole("listitem").count()).toBe(20);
      expect(await page.getByRole("table", { name: "Events" }).isVisible()).toBe(false);
      await checkPage(page, problems, "events-list", "phone");
      await page.setViewportSize(WIDTHS.desktop);
      await page.getByRole("button", { name: "Next page" }).click();
      await page.getByText(`Page 2 of 2 · ${total} events`).waitFor();
      expect(await eventRows(page).count()).toBe(total - 20);

      // Info: part of the title, case-insensitive (computed here from the files).
      const imported = [XORIST, BABYSHARK, URSNIF, LONG, PUBG];
      const ransomware = imported.filter((d) => /ransomware/i.test(d.Event.info)).map((d) => d.Event.info as string);
      expect(ransomware.length).toBeGreaterThan(1);
      await page.getByRole("textbox", { name: "Info" }).fill("RANSOMWARE");
      await page.getByText(`Page 1 of 1 · ${ransomware.length} events`).waitFor();
      expect((await eventRows(page).locator("td:first-child").allTextContents()).sort()).toEqual(ransomware.sort());
      await page.getByRole("textbox", { name: "Info" }).fill("");

      // Tags: the events carrying every tag given (Backspace in the empty box takes the last tag off).
      const tags = page.getByRole("combobox", { name: "Tags" });
      await tags.fill("tlp:white");
      await tags.press("Enter");
      const white = imported.filter((d) => (d.Event.Tag ?? []).some((t: { name: string }) => t.name === "tlp:white"));
      await page.getByText(`Page 1 of 1 · ${white.length} events`).waitFor();
      await tags.fill("type:OSINT");
      await tags.press("Enter");
      const both = white.filter((d) => d.Event.Tag.some((t: { name: string }) => t.name === "type:OSINT"));
      await page.getByText(`Page 1 of 1 · ${both.length} events`).waitFor();
      expect((await eventRows(page).locator("td:first-child").allTextContents()).sort()).toEqual(both.map((d) => d.Event.info).sort());
      await tags.press("Backspace");
      await tags.press("Backspace");
      await tags.fill(EXEMPT);
      await tags.press("Enter");
      await page.getByText("Page 1 of 1 · 1 events").waitFor();
      expect(await eventRows(page).locator("td:first-child").allTextContents()).toEqual([URSNIF.Event.info]);
      await tags.press("Backspace");
      await page.getByText(`Page 1 of 2 · ${total} events`).waitFor();

      // Organisation: the administrator's owns them all; published: none of the fillers is.
      const org = await gql(`query($id: Int) { organisation(id: $id) { name } }`, { id: admin.orgId });
      await choose(page, "Organisation", org.organisation.name);
      await page.getByText(`Page 1 of 2 · ${total} events`).waitFor();
      await choose(page, "Published", "Published");
      const published = await gql(`{ events(published: true, deleted: false) { total } }`);
      await page.getByText(published.events.total ? `· ${published.events.total} events` : "No event matches these filters.").waitFor();
      await choose(page, "Published", "Any");
      await choose(page, "Deleted", "Deleted events");
      await page.getByText("No event matches these filters.").waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows an event with its retention badge on old data, techniques, objects; follows, publishes and records a sighting", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    try {
      await signIn(page, app.url, `/events/${XORIST.Event.uuid}`);
      await page.getByRole("heading", { name: XORIST.Event.info, level: 1 }).waitFor();
      expect(daysLeft(XORIST)).toBeLessThan(0);
      await page.getByText("expired", { exact: true }).waitFor();

      const left = daysLeft(BABYSHARK);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(WARNING_DAYS);
      await page.goto(`${app.url}/events/${BABYSHARK.Event.uuid}`);
      await page.getByRole("heading", { name: BABYSHARK.Event.info, level: 1 }).waitFor();
      const badge = await page.getByText(/^expires in -?\d+d$/).textContent();
      expect(Math.abs(Number(/(-?\d+)d/.exec(badge!)![1]) - left)).toBeLessThanOrEqual(1);
      // The ATT&CK technique attached as a galaxy cluster tag; the objects with their attributes.
      const technique = BABYSHARK.Event.Tag.find((t: { name: string }) => t.name.startsWith("misp-galaxy:mitre-attack-pattern=")).name.split('="')[1].slice(0, -1);
      await page.getByRole("region", { name: "ATT&CK techniques" }).getByText(technique).waitFor();
      const objects = page.getByRole("region", { name: "Objects" });
      await objects.getByText(`Page 1 of ${Math.ceil(BABYSHARK.Event.Object.length / 5)} · ${BABYSHARK.Event.Object.length} objects`).waitFor();
      expect(await objects.getByRole("article").count()).toBe(5);
      await objects.getByRole("button", { name: "Next page of objects" }).click();
      await objects.getByText(`Page 2 of ${Math.ceil(BABYSHARK.Event.Object.length / 5)}`).waitFor();
      // The second page's objects, in the API's order, with their attributes.
      const second = await gql(`query($e: String!) { objects(eventUuid: $e, page: 2, size: 5, deleted: false) { items { name attributes { uuid } } } }`, { e: BABYSHARK.Event.uuid });
      expect(await objects.getByRole("article").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")))).toEqual(second.objects.items.map((o: { name: string }) => `Object ${o.name}`));
      expect(await objects.locator("li").count()).toBe(second.objects.items.reduce((n: number, o: { attributes: unknown[] }) => n + o.attributes.length, 0));
      await page.getByRole("region", { name: "Attributes" }).getByText(`· ${BABYSHARK.Event.Attribute.length} attributes`).waitFor();
      for (const width of ["desktop", "phone"] as Width[]) {
        await page.setViewportSize(WIDTHS[width]);
        await checkPage(page, problems, "event-page", width);
      }
      await page.setViewportSize(WIDTHS.desktop);

      // Exempt (the tag) and recent (the fillers) events carry no badge.
      await page.goto(`${app.url}/events/${URSNIF.Event.uuid}`);
      await page.getByRole("heading", { name: URSNIF.Event.info, level: 1 }).waitFor();
      await page.getByRole("region", { name: "Attributes" }).getByText(`· ${URSNIF.Event.Attribute.length} attributes`).waitFor();
      expect(await page.getByText(/^(expired|expires in -?\d+d)$/).count()).toBe(0);

      // A report's markdown is shown as its text: HTML in it is never interpreted.
      const markdown = '# Ursnif\n\n<img src="x" alt="injected"> **bold** [link](https://example.org)';
      await gql(`mutation($e: String!, $c: String!) { createEventReport(eventUuid: $e, input: { name: "Analyst notes", content: $c }) { uuid } }`, { e: URSNIF.Event.uuid, c: markdown });
      await page.reload();
      const reports = page.getByRole("region", { name: "Reports" });
      await reports.getByText("Analyst notes").waitFor();
      expect(await reports.locator("[data-report-content]").textContent()).toBe(markdown);
      expect(await reports.locator("img").count()).toBe(0);

      // Follow and unfollow: the notifications setting's follow.events.
      await page.goto(`${app.url}/events/${BABYSHARK.Event.uuid}`);
      await page.getByRole("button", { name: "Follow event", exact: true }).click();
      await page.getByRole("button", { name: "Unfollow event", exact: true }).waitFor();
      const followed = async () => ((await gql(`{ userSetting(namespace: "notifications") }`)).userSetting?.follow?.events ?? []) as string[];
      expect(await followed()).toContain(BABYSHARK.Event.uuid);
      await page.reload();
      await page.getByRole("button", { name: "Unfollow event", exact: true }).click();
      await page.getByRole("button", { name: "Follow event", exact: true }).waitFor();
      expect(await followed()).not.toContain(BABYSHARK.Event.uuid);

      // Unpublish and publish.
      const isPublished = async () => (await gql(`query($u: String!) { event(uuid: $u) { published } }`, { u: BABYSHARK.Event.uuid })).event.published;
      expect(await isPublished()).toBe(BABYSHARK.Event.published);
      if (BABYSHARK.Event.published) {
        await page.getByRole("button", { name: "Unpublish event", exact: true }).click();
        await page.getByText("unpublished", { exact: true }).waitFor();
        expect(await isPublished()).toBe(false);
      }
      await page.getByRole("button", { name: "Publish event", exact: true }).click();
      await page.getByRole("button", { name: "Unpublish event", exact: true }).waitFor();
      await page.getByText("published", { exact: true }).waitFor();
      expect(await isPublished()).toBe(true);

      // A sighting on an attribute.
      const sighted = BABYSHARK.Event.Attribute.find((a: { type: string }) => a.type === "sha256");
      await page.getByRole("combobox", { name: "Attribute type" }).fill("sha256");
      await page.getByRole("option", { name: "sha256", exact: true }).click();
      await page.getByRole("button", { name: `Sightings of ${sighted.value}` }).click();
      const dialog = page.getByRole("dialog", { name: `Sightings of ${sighted.value}` });
      await dialog.getByText("No sighting yet.").waitFor();
      await dialog.getByRole("textbox", { name: "Source" }).fill("browser test sensor");
      await dialog.getByRole("button", { name: "Add sighting" }).click();
      await dialog.getByRole("cell", { name: "browser test sensor" }).waitFor();
      const s = await gql(`query($a: String!) { sightings(attributeUuid: $a) { total items { source type } } }`, { a: sighted.uuid });
      expect(s.sightings).toEqual({ total: 1, items: [{ source: "browser test sensor", type: "sighting" }] });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");

      // Attributes page on the server.
      await page.goto(`${app.url}/events/${LONG.Event.uuid}`);
      const attributes = page.getByRole("region", { name: "Attributes" });
      const pages = Math.ceil(LONG.Event.Attribute.length / 25);
      await attributes.getByText(`Page 1 of ${pages} · ${LONG.Event.Attribute.length} attributes`).waitFor();
      await attributes.getByRole("button", { name: "Next page of attributes" }).click();
      await attributes.getByText(`Page 2 of ${pages}`).waitFor();
      expect(await attributes.getByRole("table", { name: "Attributes" }).locator("tbody tr").count()).toBe(25);
      // Filtered on the server by part of the value and by category (expected counts from the file).
      const count = (f: (a: { value: string; category: string }) => boolean) => LONG.Event.Attribute.filter(f).length;
      await attributes.getByRole("textbox", { name: "Attribute value" }).fill(".EXE");
      const exe = count((a) => a.value.toLowerCase().includes(".exe"));
      await attributes.getByText(`Page 1 of 1 · ${exe} attributes`).waitFor();
      await choose(page, "Attribute category", "Payload delivery");
      const payload = count((a) => a.value.toLowerCase().includes(".exe") && a.category === "Payload delivery");
      expect(payload).toBeLessThan(exe);
      await attributes.getByText(`Page 1 of 1 · ${payload} attributes`).waitFor();
      expect(await attributes.getByRole("table", { name: "Attributes" }).locator("tbody tr").count()).toBe(payload);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("creates an event and an attribute through the forms, shows the API's messages, exports, deletes and restores", async () => {
    const { context, page, problems } = await openPage(browser, "desktop");
    try {
      await signIn(page, app.url, "/events/new");
      await page.getByRole("heading", { name: "New event", level: 1 }).waitFor();
      for (const width of ["desktop", "phone"] as Width[]) {
        await page.setViewportSize(WIDTHS[width]);
        await checkPage(page, problems, "event-form", width);
      }
      await page.setViewportSize(WIDTHS.desktop);
      // Whitespace only: the API's message at the Info field.
      await page.getByRole("textbox", { name: "Info" }).fill("   ");
      await page.getByRole("button", { name: "Create event" }).click();
      const info = page.getByRole("textbox", { name: "Info" });
      await eventually(async () => (await info.getAttribute("aria-invalid")) === "true", "the Info field marked invalid");
      const described = await info.getAttribute("aria-describedby");
      expect(await page.locator(`[id="${described!.split(" ").find((id) => id.includes("error"))}"]`).textContent()).toMatch(/at least 1|too small|empty/i);

      await info.fill("Browser-made event: BabyShark hash");
      await choose(page, "Threat level", "High");
      await page.getByRole("button", { name: "Create event" }).click();
      await page.getByRole("heading", { name: "Browser-made event: BabyShark hash", level: 1 }).waitFor();
      const uuid = new URL(page.url()).pathname.split("/").pop()!;
      const made = await gql(`query($u: String!) { event(uuid: $u) { info threatLevel retention { status } } }`, { u: uuid });
      expect(made.event).toEqual({ info: "Browser-made event: BabyShark hash", threatLevel: 1, retention: null });

      // The attribute form: types filtered by the category; a bad value gets the API's message at Value.
      await page.getByRole("button", { name: "Add attribute" }).click();
      const form = page.getByRole("dialog", { name: "Add attribute" });
      await choose(page, "Category", "Payload delivery");
      await form.getByRole("combobox", { name: "Type", exact: true }).click();
      await page.getByRole("option", { name: "sha256", exact: true }).waitFor();
      const describe = JSON.parse(fs.readFileSync(sharedPath("misp", "describeTypes.json"), "utf8")).result;
      const elsewhere = describe.types.find((t: string) => !describe.category_type_mappings["Payload delivery"].includes(t));
      expect(await page.getByRole("option", { name: elsewhere, exact: true }).count()).toBe(0);
      expect(await page.getByRole("option").count()).toBe(describe.category_type_mappings["Payload delivery"].length);
      await page.getByRole("option", { name: "sha256", exact: true }).click();
      const value = form.getByRole("textbox", { name: "Value" });
      await value.fill("not-a-hash");
      await form.getByRole("button", { name: "Add attribute" }).click();
      await eventually(async () => (await value.getAttribute("aria-invalid")) === "true", "the Value field marked invalid");
      const valueError = await value.getAttribute("aria-describedby");
      const message = await page.locator(`[id="${valueError!.split(" ").find((id) => id.includes("error"))}"]`).textContent();
      const api = await app.http.graphql(`mutation($e: String!) { createAttribute(eventUuid: $e, input: { type: "sha256", category: "Payload delivery", value: "not-a-hash" }) { uuid } }`, { e: uuid }, admin.token);
      expect(message).toBe((api.body.errors as unknown as { extensions: { detail: { msg: string }[] } }[])[0].extensions.detail[0].msg);
      await checkPage(page, problems, "attribute-form", "desktop");

      const hash = BABYSHARK.Event.Attribute.find((a: { type: string }) => a.type === "sha256").value;
      await value.fill(hash);
      await form.getByRole("button", { name: "Add attribute" }).click();
      await form.waitFor({ state: "detached" });
      await page.getByRole("table", { name: "Attributes" }).getByText(hash).waitFor();
      // The attribute form edits it too.
      await page.getByRole("button", { name: `Edit attribute ${hash}` }).click();
      const edit = page.getByRole("dialog", { name: "Edit attribute" });
      await edit.getByRole("textbox", { name: "Comment" }).fill("seen in BabyShark");
      await edit.getByRole("button", { name: "Save attribute" }).click();
      await edit.waitFor({ state: "detached" });
      await page.getByRole("table", { name: "Attributes" }).getByText("seen in BabyShark").waitFor();

      // Correlated with BabyShark's attribute of that value: related, once the worker has run.
      await settled(app);
      await page.reload();
      await page.getByRole("region", { name: "Related events" }).getByRole("link", { name: BABYSHARK.Event.info }).waitFor();

      // The export download: the event in MISP JSON as the API exports it.
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export MISP JSON" }).click()]);
      expect(download.suggestedFilename()).toBe(`event-${uuid}.json`);
      const exported = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
      expect(exported.Event.uuid).toBe(uuid);
      expect(exported.Event.info).toBe("Browser-made event: BabyShark hash");
      expect(exported.Event.Attribute.map((a: { value: string }) => a.value)).toEqual([hash]);
      expect(exported).toEqual((await app.http.get(`/events/${uuid}/export`, { token: admin.token })).body);

      // Soft delete, then restore.
      await page.getByRole("button", { name: "Delete event", exact: true }).click();
      await page.getByRole("dialog", { name: "Delete this event?" }).getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("button", { name: "Restore event", exact: true }).waitFor();
      await page.getByText("deleted", { exact: true }).waitFor();
      expect((await gql(`query($u: String!) { event(uuid: $u) { deleted } }`, { u: uuid })).event.deleted).toBe(true);
      await page.getByRole("button", { name: "Restore event", exact: true }).click();
      await page.getByRole("button", { name: "Delete event", exact: true }).waitFor();
      expect(await page.getByText("deleted", { exact: true }).count()).toBe(0);
      expect((await gql(`query($u: String!) { event(uuid: $u) { deleted } }`, { u: uuid })).event.deleted).toBe(false);

      // The edit form changes it.
      await page.getByRole("link", { name: "Edit event" }).click();
      await page.getByRole("heading", { name: "Edit event", level: 1 }).waitFor();
      await page.getByRole("textbox", { name: "Info" }).fill("Browser-made event, renamed");
      await page.getByRole("button", { name: "Save event" }).click();
      await page.getByRole("heading", { name: "Browser-made event, renamed", level: 1 }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("tags an event from the suggestions as one types, and removes the tag", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const tagged = `suggest-${run}:alpha`;
    const doc = (info: string, tags: string[]) => ({ Event: { uuid: crypto.randomUUID(), info, date: "2024-05-01", distribution: "0", Tag: tags.map((name) => ({ name })) } });
    const source = doc(`Carries the tag ${run}`, [tagged]);
    const target = doc(`Tagged in the browser ${run}`, []);
    for (const d of [source, target]) await importDoc(d);
    const tagsOf = async () => (await gql(`query($u: String!) { event(uuid: $u) { tags { name } } }`, { u: target.Event.uuid })).event.tags.map((t: { name: string }) => t.name);

    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, `/events/${target.Event.uuid}`);
      const tags = page.getByRole("region", { name: "Tags" });
      await tags.getByText("No tags.").waitFor();
      await tags.getByRole("combobox", { name: "Add a tag" }).fill(`suggest-${run}:al`);
      await page.getByRole("option", { name: tagged }).click();
      await tags.getByRole("button", { name: `Remove the tag ${tagged}` }).waitFor();
      expect(await tagsOf()).toEqual([tagged]);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, "event-tags", "desktop");
      await tags.getByRole("button", { name: `Remove the tag ${tagged}` }).click();
      await tags.getByText("No tags.").waitFor();
      expect(await tagsOf()).toEqual([]);
      // A name nobody uses yet is created with the tag.
      await tags.getByRole("combobox", { name: "Add a tag" }).fill(`fresh-${run}`);
      await tags.getByRole("button", { name: "Add" }).click();
      await tags.getByRole("button", { name: `Remove the tag fresh-${run}` }).waitFor();
      expect(await tagsOf()).toEqual([`fresh-${run}`]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the 20 related events with most pairs and loads 20 more from the server on demand", async () => {
    // A hub and 21 events each sharing one of its values (one value per pair: a value in more than
    // 20 events never correlates by default): the hub has 21 related events.
    const attribute = (n: number) => ({ uuid: crypto.randomUUID(), type: "ip-dst", category: "Network activity", value: `198.51.100.${n}`, to_ids: false });
    const spokes = Array.from({ length: 21 }, (_, i) => i + 1);
    const event = (info: string, numbers: number[]) => ({ Event: { uuid: crypto.randomUUID(), info, date: "2024-05-01", distribution: "0", Attribute: numbers.map(attribute) } });
    const events = [event("Related hub", spokes), ...spokes.map((n) => event(`Related spoke ${n}`, [n]))];
    for (const doc of events) await importDoc(doc);
    await settled(app);
    const hub = events[0].Event.uuid;
    expect((await gql(`query($u: String!) { event(uuid: $u) { relatedEvents(limit: 100) { uuid } } }`, { u: hub })).event.relatedEvents).toHaveLength(21);

    const { context, page, problems } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    try {
      await signIn(page, app.url, `/events/${hub}`);
      const list = page.getByRole("list", { name: "Related events" });
      await list.getByRole("link", { name: /^Related spoke/ }).first().waitFor();
      expect(await list.getByRole("listitem").count()).toBe(20);
      await page.getByText("The 20 with most pairs shown; more relate to this event.").waitFor();
      await page.getByRole("button", { name: "Show 20 more" }).click();
      await expect.poll(() => list.getByRole("listitem").count()).toBe(21);
      expect(await page.getByRole("button", { name: "Show 20 more" }).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
