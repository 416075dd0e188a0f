/**
 * MISP tags/search looks tags and their taxonomies up by set (issue 26): the tags of a list of names
 * or patterns in one statement, the taxonomy of every tag of the answer in one more (not one per tag),
 * with what MISP's Taxonomy::getTaxonomyForTag answers: namespace, predicate and value compared
 * case-insensitively, the predicate even when no entry matches, no TaxonomyEntry for a two-part tag.
 * ROLE=api: no worker, so the statements counted are the request's own.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { sharedPath } from "../support/shared-data.ts";
import { countStatements } from "../support/statement-counter.ts";

type Json = Record<string, unknown>;
let app: TestApp;
let admin: TestUser;
let key: string;
let tagsOnlyKey: string;
const run = crypto.randomBytes(4).toString("hex");

const misp = (k: string, method: string, p: string, json?: unknown) => app.http.request(method, `/misp/${p}`, { authorization: k, ...(json === undefined ? {} : { json }), headers: { accept: "application/json" } });
const q = async <T = Json>(sql: string, params: unknown[] = []) => (await app.booted.ctx.db.pool.query(sql, params)).rows as T[];

async function apiKey(scopes: string[]): Promise<string> {
  const user = await createUser(app, admin, [...scopes, "api_keys:create"], await createOrganisation(app, admin));
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: `lookup-${run}`, scopes } });
  if (res.status !== 201) throw new Error(`api key: ${res.text}`);
  return res.body.token;
}

beforeAll(async () => {
  app = await startTestApp("misp-tags-lookup", { ROLE: "api", TAXONOMIES_SOURCE: sharedPath("misp-taxonomies") });
  admin = await loginAdmin(app);
  const res = await app.http.post("/taxonomies/update", { token: admin.token });
  if (res.status !== 200) throw new Error(`/taxonomies/update: ${res.text}`);
  key = await apiKey(["tags:read", "tags:create", "taxonomies:read", "events:read", "events:create", "events:delete", "events:tag", "attributes:read", "attributes:create", "attributes:tag"]);
  tagsOnlyKey = await apiKey(["tags:read", "tags:create"]);
}, 180_000);
afterAll(() => app?.close());

async function addTag(name: string): Promise<string> {
  const res = await misp(key, "POST", "tags/add", { name });
  expect(res.status, res.text).toBe(200);
  return res.body.Tag.id;
}

describe("tags/search: taxonomies as MISP's getTaxonomyForTag", () => {
  it("finds each tag's taxonomy case-insensitively, the predicate with the matching entries (or none), no TaxonomyEntry for a two-part tag", async () => {
    const [reliability] = await q<{ id: number; taxonomy_id: number; value: string }>(
      "SELECT p.id, p.taxonomy_id, p.value FROM taxonomy_predicates p JOIN taxonomies t ON t.id = p.taxonomy_id WHERE t.namespace = 'admiralty-scale' AND p.value = 'source-reliability'",
    );
    const [entryB] = await q<{ id: number; expanded: string }>("SELECT id, expanded FROM taxonomy_entries WHERE taxonomy_predicate_id = $1 AND value = 'b'", [reliability.id]);
    const [amber] = await q<{ id: number }>("SELECT p.id FROM taxonomy_predicates p JOIN taxonomies t ON t.id = p.taxonomy_id WHERE t.namespace = 'tlp' AND p.value = 'amber'");
    const names = {
      exact: 'admiralty-scale:source-reliability="b"',
      otherCase: 'Admiralty-Scale:SOURCE-reliability="B"',
      unknownEntry: `admiralty-scale:source-reliability="zz-${run}"`,
      twoPart: "TLP:AMBER",
      unknownPredicate: `admiralty-scale:nope-${run}="b"`,
      unknownNamespace: `nowhere-${run}:x="y"`,
      plain: `plain ${run}`,
      // MISP does not split a value with a quote in it: no taxonomy.
      quoted: `admiralty-scale:source-reliability="b"c-${run}"`,
    };
    for (const n of Object.values(names)) await addTag(n);
    const res = await misp(key, "POST", "tags/search", { tag: Object.values(names), strict_tagname: true });
    expect(res.status, res.text).toBe(200);
    const byName = new Map((res.body as Json[]).map((r) => [(r.Tag as Json).name as string, r]));
    expect([...byName.keys()].sort()).toEqual(Object.values(names).sort());

    const taxonomy = { namespace: "admiralty-scale", id: String(reliability.taxonomy_id), enabled: expect.any(Boolean), exclusive: expect.any(Boolean) };
    const predicate = { id: String(reliability.id), taxonomy_id: String(reliability.taxonomy_id), value: "source-reliability" };
    const entry = { id: String(entryB.id), taxonomy_predicate_id: String(reliability.id), value: "b", expanded: entryB.expanded };
    for (const n of [names.exact, names.otherCase]) {
      expect(byName.get(n), n).toMatchObject({ Taxonomy: taxonomy, TaxonomyPredicate: { ...predicate, TaxonomyEntry: [entry] } });
    }
    expect(byName.get(names.unknownEntry)).toMatchObject({ Taxonomy: taxonomy, TaxonomyPredicate: { ...predicate, TaxonomyEntry: [] } });
    const twoPart = byName.get(names.twoPart)!;
    expect(twoPart).toMatchObject({ Taxonomy: { namespace: "tlp" }, TaxonomyPredicate: { id: String(amber.id), value: "amber" } });
    expect(twoPart.TaxonomyPredicate).not.toHaveProperty("TaxonomyEntry");
    for (const n of [names.unknownPredicate, names.unknownNamespace, names.plain, names.quoted]) {
      expect(Object.keys(byName.get(n)!), n).toEqual(["Tag"]);
    }
  });

  it("reads the tags and their taxonomies in as many statements for forty tags as for one", async () => {
    const entries = await q<{ tag_name: string }>("SELECT tag_name FROM taxonomy_entries ORDER BY id LIMIT 40");
    for (const e of entries) await addTag(e.tag_name);
    const statements = async (json: unknown) => {
      const counter = countStatements();
      try {
        const res = await misp(key, "POST", "tags/search", json);
        expect(res.status, res.text).toBe(200);
        expect((res.body as Json[]).every((r) => "Taxonomy" in r)).toBe(true);
        return { n: counter.count, found: (res.body as Json[]).length };
      } finally {
        counter.stop();
      }
    };
    const names = entries.map((e) => e.tag_name);
    // Warm the key's principal first: its lookup is no part of the comparison.
    await statements({ tag: names[0], strict_tagname: true });
    const one = await statements({ tag: names[0], strict_tagname: true });
    const forty = await statements({ tag: names, strict_tagname: true });
    expect(one.found).toBe(1);
    expect(forty.found).toBe(new Set(names).size);
    expect(forty.n).toBe(one.n);
    // By pattern: the same, one statement for every pattern.
    const patternsOne = await statements({ tag: [names[0].replace(/.$/, "_")] });
    const patternsMany = await statements({ tag: names.slice(0, 20).map((n) => n.replace(/.$/, "_")) });
    expect(patternsMany.found).toBeGreaterThanOrEqual(20);
    expect(patternsMany.n).toBe(patternsOne.n);
  });

  it("leaves the taxonomy out for a key without taxonomies:read", async () => {
    await addTag("tlp:Amber");
    const res = await misp(tagsOnlyKey, "POST", "tags/search", { tag: "tlp:Amber", strict_tagname: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([{ Tag: expect.objectContaining({ name: "tlp:Amber" }) }]);
    expect((await misp(key, "POST", "tags/search", { tag: "tlp:Amber", strict_tagname: true })).body).toEqual([expect.objectContaining({ Taxonomy: expect.objectContaining({ namespace: "tlp" }) })]);
  });
});

describe("tags/index: the enabled taxonomy of each tag", () => {
  it("adds the taxonomy its namespace names with the tag's expanded form, in one lookup for the whole answer", async () => {
    const [tlp] = await q<{ id: number; version: number }>("SELECT id, version FROM taxonomies WHERE namespace = 'tlp'");
    expect((await app.http.patch(`/taxonomies/${tlp.id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    const [red] = await q<{ expanded: string }>("SELECT COALESCE(NULLIF(expanded, ''), value) AS expanded FROM taxonomy_predicates WHERE tag_name = 'tlp:red'");
    const names = { upper: `TLP:RED`, unknown: `tlp:unknown-${run}`, prefixOnly: `tlpx-${run}:foo`, disabled: `admiralty-scale:source-reliability="c-${run}"`, plain: `index plain ${run}` };
    for (const n of Object.values(names)) await addTag(n);
    const index = async (k: string, searchall: string) => {
      const res = await misp(k, "GET", `tags/index/searchall:${encodeURIComponent(searchall)}`);
      expect(res.status, res.text).toBe(200);
      return new Map((res.body.Tag as Json[]).map((t) => [t.name as string, t]));
    };
    const all = new Map([...(await index(key, "tlp")), ...(await index(key, run))]);
    const taxonomy = { id: String(tlp.id), namespace: "tlp", version: String(tlp.version), enabled: true };
    expect(all.get("tlp:red")?.Taxonomy).toMatchObject({ ...taxonomy, expanded: red.expanded });
    expect(all.get(names.upper)?.Taxonomy).toMatchObject({ ...taxonomy, expanded: red.expanded });
    expect(all.get(names.unknown)?.Taxonomy).toMatchObject({ ...taxonomy, expanded: names.unknown });
    for (const n of [names.prefixOnly, names.disabled, names.plain]) expect(all.get(n), n).not.toHaveProperty("Taxonomy");
    expect((await index(tagsOnlyKey, "tlp")).get("tlp:red")).not.toHaveProperty("Taxonomy");

    const statements = async (searchall: string) => {
      const counter = countStatements();
      try {
        return { n: counter.count, tags: (await index(key, searchall)).size };
      } finally {
        counter.stop();
      }
    };
    await statements(names.plain);
    const one = await statements(names.plain);
    const many = await statements("tlp");
    expect(many.tags).toBeGreaterThan(5);
    expect(many.n).toBe(one.n);
  });
});

describe("tags/search: names and patterns by set", () => {
  it("matches LIKE patterns case-insensitively (% and _), a backslash as itself; exact names with strict_tagname", async () => {
    const a = await addTag(`Set-${run}:alpha`);
    const b = await addTag(`set-${run}:beta`);
    const slash = await addTag(`set-${run}:back\\slash`);
    const ids = (r: { body: Json[] }) => r.body.map((x) => (x.Tag as Json).id).sort();
    expect(ids(await misp(key, "POST", "tags/search", { tag: `SET-${run}:%` }))).toEqual([a, b, slash].sort());
    expect(ids(await misp(key, "POST", "tags/search", { tag: [`set-${run}:alph_`, `set-${run}:b%`] }))).toEqual([a, b, slash].sort());
    expect(ids(await misp(key, "POST", "tags/search", { tag: `set-${run}:back\\slash` }))).toEqual([slash]);
    expect(ids(await misp(key, "POST", "tags/search", { tag: `set-${run}:back\\` }))).toEqual([]);
    // strict_tagname: exact names (as stored) and ids.
    expect(ids(await misp(key, "POST", "tags/search", { tag: [`Set-${run}:alpha`, `set-${run}:ALPHA`, b], strict_tagname: true }))).toEqual([a, b].sort());
  });

  it("removeTagFromObject finds the tag by its exact name, case-insensitively, among names that share its prefix", async () => {
    const event = await misp(key, "POST", "events/add", { Event: { info: `lookup ${run}`, distribution: "0" } });
    expect(event.status, event.text).toBe(200);
    const name = `remove-${run}:x`;
    await addTag(`${name}-longer`);
    await addTag(name);
    expect((await misp(key, "POST", "tags/attachTagToObject", { uuid: event.body.Event.uuid, tag: name })).status).toBe(200);
    const removed = await misp(key, "POST", "tags/removeTagFromObject", { uuid: event.body.Event.uuid, tag: name.toUpperCase() });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.message).toContain(`tag ${name} (`);
    expect((await misp(key, "POST", "tags/removeTagFromObject", { uuid: event.body.Event.uuid, tag: `nothing-${run}` })).status).toBe(405);
  });

  it("answers hostile names with MISP's 4xx error body, never 500", async () => {
    for (const tag of ["a\u0000b", [`x-${run}`, "\u0000"], "%".repeat(255), "_".repeat(255), "\\", ["\\%", "%\\"]]) {
      for (const strict of [true, false]) {
        const res = await misp(key, "POST", "tags/search", { tag, strict_tagname: strict });
        expect(res.status, `${JSON.stringify(tag)} ${strict}: ${res.text}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: "/misp/tags/search" });
      }
    }
    const nul = await misp(key, "POST", "tags/removeTagFromObject", { uuid: crypto.randomUUID(), tag: "a\u0000b" });
    expect(nul.status, nul.text).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);
  });
});

describe("attributes/add: duplicates by set", () => {
  const DUPLICATE = "A similar attribute already exists for this event.";

  it("checks a whole list for duplicates in one statement: as many statements for thirty refused duplicates as for one", async () => {
    const event = await misp(key, "POST", "events/add", { Event: { info: `duplicates ${run}`, distribution: "0" } });
    expect(event.status, event.text).toBe(200);
    const id = event.body.Event.id;
    const values = Array.from({ length: 30 }, (_v, i) => `dup-${i}-${run}.example.org`);
    const first = await misp(key, "POST", `attributes/add/${id}`, values.map((value) => ({ type: "domain", value })));
    expect(first.status, first.text).toBe(200);
    const statements = async (json: unknown) => {
      const counter = countStatements();
      try {
        const res = await misp(key, "POST", `attributes/add/${id}`, json);
        expect(res.status, res.text).toBe(403);
        return { n: counter.count, errors: res.body.errors };
      } finally {
        counter.stop();
      }
    };
    await statements({ type: "domain", value: values[0] });
    const one = await statements({ type: "domain", value: values[0] });
    // Upper case: the value is compared as a write would store it (domains lower-cased).
    const thirty = await statements(values.map((value) => ({ type: "domain", value: value.toUpperCase() })));
    expect(one.errors).toEqual({ value: [DUPLICATE] });
    expect(Object.keys(thirty.errors)).toHaveLength(30);
    expect(thirty.errors.attribute_29).toEqual({ value: [DUPLICATE] });
    expect(thirty.n).toBe(one.n);
  });

  it("keeps MISP's per-attribute errors for hostile items in a list, creating the others, never 500", async () => {
    const event = await misp(key, "POST", "events/add", { Event: { info: `hostile duplicates ${run}`, distribution: "0" } });
    const id = event.body.Event.id;
    const good = `fine-${run}.example.org`;
    // NUL bytes anywhere: the whole request is refused, nothing written.
    const nul = await misp(key, "POST", `attributes/add/${id}`, [{ type: "domain", value: good }, { type: "domain", value: "a\u0000b.example.org" }, { type: "domain\u0000", value: "x.example.org" }]);
    expect(nul.status, nul.text).toBe(403);
    expect(nul.body).toMatchObject({ saved: false, name: "Could not add Attribute" });
    const res = await misp(key, "POST", `attributes/add/${id}`, [
      { type: "domain", value: "x".repeat(140_000) },
      { type: "no-such-type", value: good },
      { type: "domain", value: good },
      { type: "domain", value: good.toUpperCase() },
      "not an attribute",
      { type: "domain", value: ["a", { b: 1 }] },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.Attribute.value).toBe(good);
    expect(Object.keys(res.body.errors).sort()).toEqual(["attribute_0", "attribute_1", "attribute_3", "attribute_4", "attribute_5", "attribute_6"]);
    expect(res.body.errors.attribute_3).toEqual({ value: [DUPLICATE] });
    const [{ n }] = await q<{ n: number }>("SELECT count(*)::int AS n FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.id = $1", [Number(id)]);
    expect(n).toBe(1);
  });
});

describe("events/view extended under concurrent writes", () => {
  it("answers 200 with each extension wholly in or wholly out while extensions are created, soft-deleted and deleted for good", async () => {
    const PER_EXTENSION = 3;
    const add = async (info: string, extra: Record<string, unknown> = {}, attributes = PER_EXTENSION) => {
      const res = await misp(key, "POST", "events/add", {
        Event: { info: `${run} ${info}`, distribution: "3", Attribute: Array.from({ length: attributes }, (_v, i) => ({ type: "domain", value: `${i}-${crypto.randomUUID()}.example.org` })), ...extra },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.Event as { id: string; uuid: string };
    };
    const base = await add("concurrent base", {}, 1);
    const extension = () => add("concurrent extension", { extends_uuid: base.uuid });
    const live = new Map<string, string>();
    for (let i = 0; i < 6; i++) {
      const e = await extension();
      live.set(e.id, e.uuid);
    }
    const gone = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const [soft, hard] = [...live.entries()];
      const untouched = new Set([...live.keys()].filter((id) => id !== soft[0] && id !== hard[0]));
      const goneBefore = new Set(gone);
      const [answers, created] = await Promise.all([
        Promise.all([0, 1, 2, 3, 4, 5].map(() => misp(key, "GET", `events/view/${base.id}/extended:1`))),
        Promise.all([
          app.http.delete(`/events/${soft[1]}`, { token: key }).then((r) => expect(r.status, r.text).toBeLessThan(300)),
          misp(key, "POST", `events/delete/${hard[0]}`, {}).then((r) => expect(r.status, r.text).toBe(200)),
          extension(),
          extension(),
        ]).then((r) => r.slice(2) as { id: string; uuid: string }[]),
      ]);
      for (const res of answers) {
        expect(res.status, res.text).toBe(200);
        const ids = new Set(Object.keys(res.body.Event.extensionEvents ?? {}));
        for (const id of untouched) expect(ids, `round ${round}: untouched extension ${id}`).toContain(id);
        for (const id of goneBefore) expect(ids, `round ${round}: extension ${id} deleted before the request`).not.toContain(id);
        for (const id of ids) expect([...untouched, soft[0], hard[0], ...created.map((c) => c.id)], `round ${round}: ${id}`).toContain(id);
        const perEvent = new Map<string, number>();
        for (const a of res.body.Event.Attribute as { event_id: string }[]) perEvent.set(a.event_id, (perEvent.get(a.event_id) ?? 0) + 1);
        expect(perEvent.get(base.id)).toBe(1);
        perEvent.delete(base.id);
        expect(Object.fromEntries(perEvent), `round ${round}`).toEqual(Object.fromEntries([...ids].map((id) => [id, PER_EXTENSION])));
      }
      live.delete(soft[0]);
      live.delete(hard[0]);
      gone.add(soft[0]).add(hard[0]);
      for (const c of created) live.set(c.id, c.uuid);
    }
    // Once the writes are over, exactly the live extensions.
    const last = await misp(key, "GET", `events/view/${base.id}/extended:1`);
    expect(Object.keys(last.body.Event.extensionEvents).sort()).toEqual([...live.keys()].sort());
  }, 120_000);

  it("never loses an extension replaced by another in one transaction while a large extension is read (the lookup and the read are one snapshot)", async () => {
    const add = async (info: string, extra: Record<string, unknown>, attributes: number) => {
      const res = await misp(key, "POST", "events/add", {
        Event: { info: `${run} ${info}`, distribution: "3", Attribute: Array.from({ length: attributes }, (_v, i) => ({ type: "domain", value: `${i}-${crypto.randomUUID()}.example.org` })), ...extra },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.Event as { id: string; uuid: string };
    };
    const base = await add("swap base", {}, 1);
    // Read first in the list (newest change first) and slow to export: the window between the lookup and the read of the next one.
    let current = await add("swapped extension", { extends_uuid: base.uuid }, 2);
    const large = await add("large extension", { extends_uuid: base.uuid }, 1000);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (let round = 0; round < 16; round++) {
      // The replacement extends another event until the swap makes it this one's.
      const next = await add("replacement", { extends_uuid: large.uuid }, 2);
      const view = misp(key, "GET", `events/view/${base.id}/extended:1`);
      await sleep(5 + round * 10);
      const client = await app.booted.ctx.db.pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("DELETE FROM events WHERE id = $1", [Number(current.id)]);
        await client.query("UPDATE events SET extends_uuid = $1, timestamp = 0 WHERE id = $2", [base.uuid, Number(next.id)]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      const res = await view;
      expect(res.status, res.text).toBe(200);
      const ids = Object.keys(res.body.Event.extensionEvents ?? {});
      expect(ids, `round ${round}`).toContain(large.id);
      expect(ids.filter((id) => id === current.id || id === next.id), `round ${round}: exactly one of the swapped pair`).toHaveLength(1);
      expect((res.body.Event.Attribute as unknown[]).length).toBe(1 + 1000 + 2);
      current = next;
    }
  }, 180_000);
});

describe("the tags' lower(name) index", () => {
  it("serves the lookup of names ignoring case (TagsRepository.byNames) instead of a scan of the tags", async () => {
    const client = await app.booted.ctx.db.pool.connect();
    try {
      await client.query("BEGIN");
      // The test's catalogue is small enough for a scan to be cheaper: forbid it to see whether the index can serve.
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query("EXPLAIN (FORMAT JSON) SELECT id FROM tags WHERE lower(name) = ANY($1::text[]) ORDER BY name, id LIMIT $2", [["tlp:amber", `x-${run}`], 10]);
      expect(JSON.stringify(rows[0])).toContain('"Index Name":"tags_lower_name_idx"');
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});
