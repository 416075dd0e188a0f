/**
 * STIX bundles of real MISP events, validated against the official STIX 2.1 JSON schemas (read in
 * place from the shared data) and the pattern grammar.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { domainToASCII } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMispEvent } from "../../src/modules/events/misp-parse.ts";
import type { AttributeDraft, EventDraft } from "../../src/modules/events/event-draft.ts";
import { expandedFields } from "../../src/indexing/documents.ts";
import { isValidStixPattern, parseStixPattern, stixBundle, type StixExportOptions, type StixInput } from "../../src/modules/exports/stix/index.ts";
import { sharedPath } from "../support/shared-data.ts";

type Json = Record<string, any>;

// --- The official schemas --------------------------------------------------------------------------

const SCHEMAS = sharedPath("stix2-json-schemas", "schemas");
const BASE = "http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/";

function schemaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? schemaFiles(p) : f.endsWith(".json") ? [p] : [];
  });
}

let validators: Map<string, ValidateFunction>;
let validateBundle: ValidateFunction;
/** The types bundle.json's items accept, each through its own schema (its `oneOf`). */
let bundleTypes: Set<string>;

beforeAll(() => {
  // The files declare draft 2020-12 and refer to each other by relative $ref under their $id. Their
  // patterns escape characters that only a regular expression without the `u` flag allows (`\-`).
  const ajv = new Ajv2020({ strict: false, unicodeRegExp: false });
  addFormats.default(ajv, ["uri", "email", "hostname"]);
  // ajv-formats has no idn-hostname: a host name once in its IDNA (punycode) form.
  const hostname = fullFormats.hostname as RegExp;
  ajv.addFormat("idn-hostname", (v: string) => {
    const ascii = domainToASCII(v);
    return ascii !== "" && hostname.test(ascii);
  });
  for (const file of schemaFiles(SCHEMAS)) ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
  const get = (rel: string) => ajv.getSchema(BASE + rel) ?? expect.fail(`no schema ${rel}`);
  validators = new Map();
  for (const dir of ["sdos", "sros", "observables"]) {
    for (const f of readdirSync(path.join(SCHEMAS, dir))) validators.set(f.replace(/\.json$/, ""), get(`${dir}/${f}`));
  }
  validators.set("marking-definition", get("common/marking-definition.json"));
  validateBundle = get("common/bundle.json");
  const bundleSchema = JSON.parse(readFileSync(path.join(SCHEMAS, "common", "bundle.json"), "utf8"));
  const known: { $ref: string }[] = bundleSchema.properties.objects.items.anyOf[0].oneOf;
  bundleTypes = new Set(known.map((r) => path.basename(r.$ref, ".json")));
});

function schemaErrors(validate: ValidateFunction, value: unknown): string | null {
  return validate(value) ? null : JSON.stringify(validate.errors?.slice(0, 5));
}

/** Every check a bundle must pass: schemas, patterns, references, ids. */
function assertValidBundle(bundle: Json): void {
  const objects: Json[] = bundle.objects ?? [];
  // The schemas' bundle.json omits note from its list of objects, and a note matches both of its
  // fallbacks for other objects (core and cyber-observable core), so its oneOf refuses every note,
  // however valid: the bundle is checked without its notes, and each note against note.json below.
  // bundle.json checks each object on its own, against a oneOf of the listed types' schemas, each
  // of which pins its `type` (and the custom-object fallback excludes the listed types): an object of
  // a listed type passes it exactly when it passes its own type's schema, which every object is
  // checked against below. So bundle.json sees one object of each type, not all of them (its oneOf
  // tries some 40 schemas per object: seconds for a feed event of 2,000 domains).
  const firstOfType = new Map<string, Json>();
  for (const o of objects) if (o.type !== "note" && !firstOfType.has(o.type)) firstOfType.set(o.type, o);
  expect(schemaErrors(validateBundle, objects.length ? { ...bundle, objects: [...firstOfType.values()] } : bundle)).toBeNull();
  const problems: string[] = [];
  const byId = new Map<string, Json>();
  for (const o of objects) {
    const validate = validators.get(o.type);
    const problem = !validate ? "no schema for its type" : o.type !== "note" && !bundleTypes.has(o.type) ? "a type bundle.json does not list" : schemaErrors(validate, o);
    if (problem) problems.push(`${o.id}: ${problem}\n${JSON.stringify(o)}`);
    if (o.type === "indicator" && o.pattern_type === "stix") {
      try {
        parseStixPattern(o.pattern);
      } catch (err) {
        problems.push(`${o.id}: ${(err as Error).message} in ${o.pattern}`);
      }
    }
    // Only SCOs (deterministic ids of their content) may repeat, and then identically.
    const seen = byId.get(o.id);
    if (seen && JSON.stringify(seen) !== JSON.stringify(o)) problems.push(`${o.id}: two different objects`);
    byId.set(o.id, o);
  }
  for (const o of byId.values()) {
    for (const ref of references(o)) if (!byId.has(ref)) problems.push(`${o.id} -> ${ref}: not in the bundle`);
    if (o.created && o.modified && o.modified < o.created) problems.push(`${o.id}: modified before created`);
    if (o.valid_until && o.valid_until <= o.valid_from) problems.push(`${o.id}: valid_until not after valid_from`);
    if (o.last_observed && o.last_observed < o.first_observed) problems.push(`${o.id}: last_observed before first_observed`);
  }
  expect(problems.slice(0, 10)).toEqual([]);
}

function references(o: Json): string[] {
  const refs: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k.endsWith("_ref") && typeof v === "string") refs.push(v);
    if (k.endsWith("_refs") && Array.isArray(v)) refs.push(...v);
  }
  return refs;
}

// --- MISP events as search documents ---------------------------------------------------------------

/**
 * The documents `src/indexing/documents.ts` would index for an imported event (the same
 * fields, from the draft the import writes instead of the rows it reads back).
 */
function documentsOf(draft: EventDraft, orgcId: number): StixInput[] {
  const tags = (list: { name: string; colour: string | null; local: boolean }[]) =>
    list.map((t) => ({ name: t.name, colour: t.colour ?? "#ffffff", local: t.local, is_galaxy: t.name.startsWith("misp-galaxy:") }));
  const event: StixInput = {
    index: "svc-events",
    source: {
      uuid: draft.uuid, info: draft.info, org_id: orgcId, orgc_id: orgcId, user_id: 1, date: draft.date, published: draft.published,
      analysis: draft.analysis, threat_level: draft.threatLevel, distribution: draft.distribution, attribute_count: draft.attributes.length,
      object_count: draft.objects.length, timestamp: draft.timestamp, publish_timestamp: draft.publishTimestamp,
      sighting_timestamp: draft.sightingTimestamp, locked: draft.locked, protected: draft.protected, disable_correlation: draft.disableCorrelation,
      deleted: false, extends_uuid: draft.extendsUuid, organisation: draft.orgc, orgc: draft.orgc, tags: tags(draft.tags),
      "@timestamp": new Date(draft.timestamp * 1000).toISOString().slice(0, 19), event_distribution: draft.distribution,
      event_org_id: orgcId, event_orgc_id: orgcId, visible_to: [-1],
    },
  };
  const attribute = (a: AttributeDraft, object: { uuid: string; distribution: number; deleted: boolean } | null): StixInput => ({
    index: "svc-attributes",
    source: {
      uuid: a.uuid, event_uuid: draft.uuid, object_uuid: object?.uuid ?? null, object_relation: a.objectRelation, category: a.category,
      type: a.type, value: a.value, comment: a.comment, to_ids: a.toIds, deleted: a.deleted || (object?.deleted ?? false),
      disable_correlation: a.disableCorrelation, timestamp: a.timestamp,
      first_seen: a.firstSeen ? Math.floor(a.firstSeen.getTime() / 1000) : null, last_seen: a.lastSeen ? Math.floor(a.lastSeen.getTime() / 1000) : null,
      distribution: a.distribution, tags: tags(a.tags), expanded: expandedFields(a.type, a.value1, a.value2),
      "@timestamp": new Date(a.timestamp * 1000).toISOString(), event_distribution: draft.distribution, event_org_id: orgcId,
      event_orgc_id: orgcId, object_distribution: object?.distribution ?? null, visible_to: [-1],
    },
  });
  return [
    event,
    ...draft.attributes.map((a) => attribute(a, null)),
    ...draft.objects.flatMap((o) => o.attributes.map((a) => attribute(a, o))),
  ];
}

const orgIds = new Map<string, number>();
function loadEvent(file: string): { draft: EventDraft; docs: StixInput[] } {
  const { draft } = parseMispEvent(JSON.parse(readFileSync(file, "utf8")), { skipInvalidAttributes: true });
  const key = draft.orgc?.uuid ?? "none";
  if (!orgIds.has(key)) orgIds.set(key, orgIds.size + 1);
  return { draft, docs: documentsOf(draft, orgIds.get(key)!) };
}

const eventFiles = (dir: string) =>
  readdirSync(sharedPath(dir))
    .filter((f) => /^[\w-]+\.json$/.test(f) && f !== "manifest.json")
    .sort()
    .map((f) => sharedPath(dir, f));

const MISP_EVENTS = eventFiles("misp-events");
const FEED_EVENTS = eventFiles("misp-feed-sample");
/**
 * The feed's largest event (1 MB, 4 000 domains) only repeats what the others show, at 5 s of
 * bundle-schema validation: its patterns are checked with all the others' below.
 */
const VALIDATED_EVENTS = [...MISP_EVENTS, ...FEED_EVENTS.filter((f) => statSync(f).size < 1_000_000)];

async function bundleOf(docs: Iterable<StixInput>, options: StixExportOptions = {}): Promise<string> {
  let text = "";
  for await (const chunk of stixBundle(docs, { bundleId: "bundle--4a8c7f3e-0e0f-4d7a-9c1b-2f5e8d6a1b3c", ...options })) text += chunk;
  return text;
}

const objectsOf = (bundle: Json, type: string): Json[] => (bundle.objects ?? []).filter((o: Json) => o.type === type);

// --- Tests -----------------------------------------------------------------------------------------

describe("STIX bundles of real MISP events", () => {
  it.each(VALIDATED_EVENTS.map((f) => [path.basename(f), f]))("%s is valid STIX 2.1", async (_name, file) => {
    const { draft, docs } = loadEvent(file);
    const bundle = JSON.parse(await bundleOf(docs));
    assertValidBundle(bundle);

    // One object per live attribute, under its own uuid, all in the event's report.
    const live = docs.filter((d) => d.index === "svc-attributes" && !d.source.deleted);
    const [report] = objectsOf(bundle, "report");
    expect(report.id).toBe(`report--${draft.uuid}`);
    expect(report.name).toBe(draft.info);
    const primaries = new Map<string, Json[]>();
    for (const o of bundle.objects) {
      if (!["indicator", "observed-data", "note"].includes(o.type)) continue;
      const uuid = o.id.split("--")[1];
      primaries.set(uuid, [...(primaries.get(uuid) ?? []), o]);
    }
    expect(primaries.size).toBe(live.length);
    const inReport = new Set(report.object_refs);
    const wrong = live.filter((d) => {
      const own = primaries.get(String(d.source.uuid)) ?? [];
      return own.length !== 1 || !inReport.has(own[0].id) || (own[0].type === "indicator" && !d.source.to_ids);
    });
    expect(wrong.map((d) => d.source.uuid)).toEqual([]);
    // The event's creator made everything.
    const [identity] = objectsOf(bundle, "identity");
    expect(identity.name).toBe(draft.orgc!.name);
    for (const o of bundle.objects) if (["indicator", "observed-data", "note", "report"].includes(o.type)) expect(o.created_by_ref).toBe(identity.id);
  });

  it("exports each common type as an indicator of the expected kind", async () => {
    // Each event's bundle is validated above.
    const bundle = JSON.parse(await bundleOf([...MISP_EVENTS, ...FEED_EVENTS].flatMap((f) => loadEvent(f).docs)));
    const patterns = objectsOf(bundle, "indicator").map((o) => o.pattern as string);
    const unparsable = objectsOf(bundle, "indicator").filter((o) => o.pattern_type === "stix" && !isValidStixPattern(o.pattern));
    expect(unparsable).toEqual([]);
    for (const start of [
      "[domain-name:value = ", "[ipv4-addr:value = ", "[url:value = ", "[file:hashes.MD5 = ", "[file:hashes.'SHA-1' = ",
      "[file:hashes.'SHA-256' = ", "[file:name = ", "[email-message:from_ref.value = ", "[network-traffic:dst_ref.type = 'ipv4-addr' AND ",
      "[windows-registry-key:key = ", "[file:extensions.'windows-pebinary-ext'.imphash = ", "[file:hashes.SSDEEP = ",
    ]) {
      expect(patterns.some((p) => p.startsWith(start)), start).toBe(true);
    }
    expect(patterns.some((p) => /^\[file:name = '[^']+' AND file:hashes\.'SHA-256' = '[0-9a-f]{64}'\]$/.test(p))).toBe(true);
    // Yara rules stay yara.
    expect(objectsOf(bundle, "indicator").some((o) => o.pattern_type === "yara")).toBe(true);
    // Not for detection, with an observable: observed data of valid SCOs.
    const observed = objectsOf(bundle, "observed-data");
    expect(observed.length).toBeGreaterThan(0);
    expect(new Set(observed.flatMap((o) => o.object_refs.map((r: string) => r.split("--")[0])))).toEqual(
      new Set(["file", "url", "domain-name", "ipv4-addr", "windows-registry-key", "mutex", "email-addr", "email-message"]),
    );
    // Short hive names become the full ones STIX requires.
    expect(bundle.objects.some((o: Json) => o.type === "windows-registry-key" && o.key.startsWith("HKEY_CURRENT_USER\\Software\\"))).toBe(true);
    expect(objectsOf(bundle, "note").some((o) => o.abstract.endsWith(": text"))).toBe(true);
  });

  it("marks what TLP tags mark, with TLP 1.0 and TLP 2.0 markings", async () => {
    const white = JSON.parse(await bundleOf(loadEvent(MISP_EVENTS[0]).docs));
    const [marking] = objectsOf(white, "marking-definition");
    expect(marking).toEqual({
      type: "marking-definition", spec_version: "2.1", id: "marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9",
      created: "2017-01-20T00:00:00.000Z", definition_type: "tlp", name: "TLP:WHITE", definition: { tlp: "white" },
    });
    for (const o of white.objects) if (o.type !== "marking-definition" && o.type !== "identity") expect(o.object_marking_refs, o.id).toEqual([marking.id]);

    const clearFile = FEED_EVENTS.find((f) => loadEvent(f).draft.tags.some((t) => t.name === "tlp:clear"))!;
    const clear = JSON.parse(await bundleOf(loadEvent(clearFile).docs));
    assertValidBundle(clear);
    expect(objectsOf(clear, "marking-definition").map((m) => [m.id, m.name, m.extensions])).toEqual([
      [
        "marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487",
        "TLP:CLEAR",
        { "extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d": { extension_type: "property-extension", tlp_2_0: "clear" } },
      ],
    ]);
  });

  it("turns ATT&CK galaxy tags into attack patterns referred to by reports and relationships", async () => {
    const file = MISP_EVENTS.find((f) => f.endsWith("image_event.json"))!;
    const bundle = JSON.parse(await bundleOf(loadEvent(file).docs));
    assertValidBundle(bundle);
    const [pattern] = objectsOf(bundle, "attack-pattern");
    expect(pattern.name).toBe("Stolen Developer Credentials or Signing Keys");
    expect(pattern.external_references).toEqual([{ source_name: "mitre-attack", external_id: "T1441", url: "https://attack.mitre.org/techniques/T1441/" }]);
    expect(objectsOf(bundle, "report")[0].object_refs).toContain(pattern.id);
  });

  it("gives the same bundle, byte for byte, on a second export and the same objects whatever the grouping", async () => {
    const docs = [...MISP_EVENTS, ...FEED_EVENTS.filter((f) => statSync(f).size < 20_000)].flatMap((f) => loadEvent(f).docs);
    const first = await bundleOf(docs);
    expect(await bundleOf(docs)).toBe(first);
    const grouped = JSON.parse(await bundleOf(docs, { groupedByEvent: true }));
    const sorted = (b: Json) => b.objects.map((o: Json) => JSON.stringify(o)).sort();
    expect(sorted(grouped)).toEqual(sorted(JSON.parse(first)));
  });

  it("keeps a valid bundle when attributes come before their event, and applies the event's markings when it can load it", async () => {
    const { draft, docs } = loadEvent(MISP_EVENTS[0]);
    const [event, ...attributes] = docs;
    const late = JSON.parse(await bundleOf([...attributes, event]));
    assertValidBundle(late);
    const indicator = objectsOf(late, "indicator")[0];
    expect(indicator.object_marking_refs).toBeUndefined();
    expect(objectsOf(late, "report")[0].name).toBe(draft.info);

    const loaded = JSON.parse(await bundleOf(attributes, { loadEvent: async (uuid) => (uuid === draft.uuid ? event.source : null) }));
    assertValidBundle(loaded);
    expect(objectsOf(loaded, "indicator")[0].object_marking_refs).toEqual(["marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9"]);
    expect(objectsOf(loaded, "identity")).toHaveLength(1);
  });
});

describe("STIX bundles of built documents", () => {
  const EVENT = "0b7a9c7e-6f1d-4c52-9a43-1f0e2d3c4b5a";
  const event = (tags: string[]): StixInput => ({
    index: "svc-events",
    source: {
      uuid: EVENT, info: "Spearphishing wave", date: "2024-03-01", timestamp: 1709300000, publish_timestamp: 1709310000, published: true,
      orgc_id: 7, orgc: { uuid: "5f6c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b", name: "CERT Example" }, deleted: false,
      tags: tags.map((name) => ({ name, colour: "#000000", local: false, is_galaxy: name.startsWith("misp-galaxy:") })),
    },
  });
  let n = 0;
  const attribute = (type: string, value: string, extra: Json = {}): StixInput => ({
    index: "svc-attributes",
    source: {
      uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`, event_uuid: EVENT, object_uuid: null, object_relation: null,
      category: "Network activity", type, value, comment: "", to_ids: true, deleted: false, timestamp: 1709300000 + n,
      first_seen: null, last_seen: null, tags: [], event_orgc_id: 7, ...extra,
    },
  });
  const tagged = (...names: string[]) => ({ tags: names.map((name) => ({ name, colour: "#000000", local: false, is_galaxy: false })) });

  it("is valid for every TLP level and for ATT&CK tags on events and attributes", async () => {
    const levels = ["tlp:white", "tlp:clear", "tlp:green", "tlp:amber", "tlp:amber+strict", "tlp:red"];
    const docs = [
      event(["tlp:amber", 'misp-galaxy:mitre-attack-pattern="Phishing - T1566"']),
      ...levels.map((l, i) => attribute("domain", `d${i}.example.com`, tagged(l))),
      attribute("sha256", "a".repeat(64), tagged('misp-galaxy:mitre-attack-pattern="Spearphishing Attachment - T1566.001"')),
      attribute("text", "free text", { to_ids: false, ...tagged('misp-galaxy:mitre-enterprise-attack-attack-pattern="Spearphishing Attachment - T1566.001"') }),
      attribute("ip-dst", "198.51.100.7", { to_ids: false, first_seen: 1709000000, last_seen: 1709100000 }),
      attribute("url", "https://example.com/it's\\here", { comment: "quote and backslash" }),
      attribute("ip-src|port", "[2001:db8::1]:8443"),
      attribute("regkey|value", "HKLM\\Software\\Run|c:\\evil.exe"),
    ];
    const bundle = JSON.parse(await bundleOf(docs));
    assertValidBundle(bundle);
    expect(objectsOf(bundle, "marking-definition").map((m) => m.name).sort()).toEqual(
      ["TLP:AMBER", "TLP:AMBER+STRICT", "TLP:CLEAR", "TLP:GREEN", "TLP:RED", "TLP:WHITE"],
    );
    // An attribute carries its own TLP and its event's.
    const red = objectsOf(bundle, "indicator").find((o) => o.name === "d5.example.com")!;
    expect(red.object_marking_refs).toEqual(["marking-definition--5e57c739-391a-4eb3-b6be-7d15ca92d5ed", "marking-definition--f88d31f6-486f-44da-b317-01333bde0b82"]);
    // Two galaxies, one technique: one attack pattern, and each attribute relates to it.
    const patterns = objectsOf(bundle, "attack-pattern");
    expect(patterns.map((p) => p.external_references[0].external_id).sort()).toEqual(["T1566", "T1566.001"]);
    const technique = patterns.find((p) => p.name === "Spearphishing Attachment")!;
    const relationships = objectsOf(bundle, "relationship");
    expect(relationships.map((r) => [r.source_ref.split("--")[0], r.relationship_type, r.target_ref])).toEqual([
      ["indicator", "indicates", technique.id],
      ["note", "related-to", technique.id],
    ]);
    const [report] = objectsOf(bundle, "report");
    for (const id of [...patterns.map((p) => p.id), ...relationships.map((r) => r.id)]) expect(report.object_refs).toContain(id);
    expect(report).toMatchObject({ published: "2024-03-01T16:20:00.000Z", created: "2024-03-01T00:00:00.000Z", modified: "2024-03-01T13:33:20.000Z" });
    const url = objectsOf(bundle, "indicator").find((o) => o.description === "quote and backslash")!;
    expect(url.pattern).toBe("[url:value = 'https://example.com/it\\'s\\\\here']");
    const observed = objectsOf(bundle, "observed-data")[0];
    expect(observed).toMatchObject({ first_observed: "2024-02-27T02:13:20.000Z", last_observed: "2024-02-28T06:00:00.000Z", number_observed: 1 });
  });

  it("names the creator from the organisation lookup when no event document comes", async () => {
    const lookups: number[] = [];
    const loadOrganisation = async (id: number) => {
      lookups.push(id);
      return { uuid: "5f6c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b", name: "CERT Example" };
    };
    const bundle = JSON.parse(await bundleOf([attribute("domain", "a.example.com"), attribute("md5", "d41d8cd98f00b204e9800998ecf8427e")], { loadOrganisation }));
    assertValidBundle(bundle);
    expect(lookups).toEqual([7]);
    const [identity] = objectsOf(bundle, "identity");
    const [report] = objectsOf(bundle, "report");
    expect(report).toMatchObject({ name: `MISP event ${EVENT}`, created_by_ref: identity.id, object_refs: objectsOf(bundle, "indicator").map((o) => o.id) });
    for (const o of objectsOf(bundle, "indicator")) expect(o.created_by_ref).toBe(identity.id);
  });

  it("writes notes the schemas' note.json accepts and their bundle.json refuses (its gap, see assertValidBundle)", async () => {
    const bundle = JSON.parse(await bundleOf([event([]), attribute("text", "context only", { to_ids: false })]));
    assertValidBundle(bundle);
    const [note] = objectsOf(bundle, "note");
    expect(note).toMatchObject({ content: "context only", object_refs: [`report--${EVENT}`] });
    expect(schemaErrors(validators.get("note")!, note)).toBeNull();
    expect(schemaErrors(validateBundle, bundle)).not.toBeNull();
  });

  it("skips deleted and unreadable documents and writes an empty bundle without an objects list", async () => {
    const text = await bundleOf([
      attribute("domain", "gone.example.com", { deleted: true }),
      { index: "svc-attributes", source: { uuid: "not a uuid" } },
      { index: "svc-correlations", source: {} },
    ]);
    expect(text).toBe('{"type":"bundle","id":"bundle--4a8c7f3e-0e0f-4d7a-9c1b-2f5e8d6a1b3c"}');
    assertValidBundle(JSON.parse(text));
  });

  it("refuses an event that comes back after its report was written in grouped mode", async () => {
    const other = { ...event([]), source: { ...event([]).source, uuid: "1b7a9c7e-6f1d-4c52-9a43-1f0e2d3c4b5a" } };
    await expect(bundleOf([event([]), other, attribute("domain", "late.example.com")], { groupedByEvent: true })).rejects.toThrow(/not together/);
  });
});
