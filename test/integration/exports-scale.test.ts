/**
 * Saved exports at scale (issue 21), on each search backend (OpenSearch when OPENSEARCH_URL is set):
 * 25,000 synthetic attributes (bench/search-data.ts) bulk-indexed straight into the service's index
 * beside distribution-0 attributes of another organisation and soft-deleted ones. Each format's run
 * must write exactly what an exact-total search counts for the owner (no 10,000 cap), each document
 * once, none of the other organisation's or deleted ones; the run's heap is sampled while it writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents } from "../../bench/search-data.ts";
import { EVERYONE } from "../../src/auth/distribution.ts";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import type { SearchDocument } from "../../src/search/search-index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const PUBLIC = 25_000;

/** RFC 4180 records: CRLFs outside quoted cells (synthetic comments hold line breaks). */
function csvRecords(text: string): number {
  let records = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text[i] === "\r" && text[i + 1] === "\n") records++;
  }
  return records;
}
const HIDDEN = 50;
const DELETED = 30;

describe.each(SEARCH_BACKENDS)("saved exports of 25,000 attributes on $name", ({ name, env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser;
  const hidden = new Set<string>();
  const deleted = new Set<string>();
  const standalone = new Set<string>();

  beforeAll(async () => {
    app = await startTestApp("exports-scale", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, 3, await createOrganisation(app, admin));
    await app.http.post("/settings/runtime/exports", { token: admin.token, json: { max_active_per_user: 10 } });
    const attributes: SearchDocument[] = [];
    const events: SearchDocument[] = [];
    for (const { event, attributes: attrs } of generateEvents({ events: PUBLIC / 100, attributesPerEvent: 100, seed: 7 })) {
      events.push({ id: event.id, source: { ...event.source, visible_to: [EVERYONE] } });
      for (const a of attrs) {
        attributes.push({ id: a.id, source: { ...a.source, deleted: false, visible_to: [EVERYONE] } });
        if (!a.source.object_uuid) standalone.add(a.id);
      }
    }
    const template = attributes[0]!.source;
    const id = (kind: number, i: number) => `00000000-0000-4000-8000-${kind.toString(16).padStart(4, "0")}${i.toString(16).padStart(8, "0")}`;
    for (let i = 0; i < HIDDEN; i++) {
      hidden.add(id(1, i));
      attributes.push({ id: id(1, i), source: { ...template, uuid: id(1, i), value: `hidden-${i}.example`, distribution: 0, deleted: false, visible_to: [admin.orgId] } });
    }
    for (let i = 0; i < DELETED; i++) {
      deleted.add(id(2, i));
      attributes.push({ id: id(2, i), source: { ...template, uuid: id(2, i), value: `deleted-${i}.example`, deleted: true, visible_to: [EVERYONE] } });
    }
    await app.booted.ctx.search.bulkIndex("svc-attributes", attributes);
    await app.booted.ctx.search.bulkIndex("svc-events", events);
    await app.booted.ctx.search.refresh();
  }, 600_000);
  afterAll(async () => {
    await app?.close();
  });

  /** Runs an export of the analyst's to completion, sampling the heap meanwhile; answers the file. */
  async function run(format: string, extra: Record<string, unknown> = {}): Promise<{ meta: Record<string, any>; text: string; heapGrowthMb: number; ms: number }> {
    global.gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 25);
    const started = Date.now();
    try {
      const created = await app.http.post("/exports/", { token: analyst.token, json: { name: `all as ${format}`, query: "", format, ...extra } });
      expect(created.status, created.text).toBe(201);
      const meta = await eventually(async () => {
        const r = await app.http.get(`/exports/${created.body.id}`, { token: analyst.token });
        return ["completed", "failed"].includes(r.body.status) ? r.body : undefined;
      }, `${format} export finished`, 300_000, 100);
      const ms = Date.now() - started;
      expect(meta.status, meta.error).toBe("completed");
      const file = await app.http.get(`/exports/${meta.id}/download`, { token: analyst.token });
      expect(file.status).toBe(200);
      const heapGrowthMb = (peak - base) / 1e6;
      console.log(`[${name}] ${format}: ${meta.record_count} records, ${(meta.file_size / 1e6).toFixed(1)} MB in ${ms} ms, heap growth during the run ${heapGrowthMb.toFixed(0)} MB`);
      return { meta, text: file.text, heapGrowthMb, ms };
    } finally {
      clearInterval(sampler);
    }
  }

  const searchTotal = async () =>
    (
      await app.booted.ctx.search.search({
        index: "svc-attributes", query: parseLucene(""), defaultFields: INDEX_FIELDS["svc-attributes"].defaultFields,
        access: { admin: false, orgId: analyst.orgId }, filters: { deleted: false }, from: 0, size: 0, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 30_000, trackTotalHits: true,
      })
    ).total;

  it("json: every document the owner may read once, as many as an exact-total search counts", async () => {
    const { meta, text } = await run("json");
    const docs = JSON.parse(text) as { uuid: string }[];
    expect(await searchTotal()).toBe(PUBLIC);
    expect(docs.length).toBe(PUBLIC);
    expect(meta.record_count).toBe(PUBLIC);
    const ids = new Set(docs.map((d) => d.uuid));
    expect(ids.size).toBe(PUBLIC);
    expect([...hidden, ...deleted].some((h) => ids.has(h))).toBe(false);
  }, 600_000);

  it("csv: a header and a row per document", async () => {
    const { meta, text } = await run("csv");
    expect(meta.record_count).toBe(PUBLIC);
    expect(csvRecords(text)).toBe(PUBLIC + 1);
  }, 600_000);

  it("stix: one indicator, observed-data or note per document, ids unique", async () => {
    const { meta, text } = await run("stix");
    expect(meta.record_count).toBe(PUBLIC);
    const bundle = JSON.parse(text) as { type: string; objects: { type: string; id: string }[] };
    expect(bundle.type).toBe("bundle");
    const primary = bundle.objects.filter((o) => ["indicator", "observed-data", "note"].includes(o.type)).length;
    expect(primary).toBe(PUBLIC);
    expect(new Set(bundle.objects.map((o) => o.id)).size).toBe(bundle.objects.length);
  }, 600_000);

  it("misp: one event with every standalone attribute (the synthetic objects have no rows: their attributes are left out and not counted)", async () => {
    const { meta, text } = await run("misp", { distribution: 1 });
    const doc = JSON.parse(text) as { Event: { Attribute: { uuid: string }[]; Object: unknown[] } };
    expect(doc.Event.Attribute.length).toBe(standalone.size);
    expect(doc.Event.Object).toEqual([]);
    expect(meta.record_count).toBe(standalone.size);
  }, 600_000);
});
