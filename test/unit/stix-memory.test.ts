/**
 * The STIX writer over 200 000 documents: what it keeps between documents stays within the bounds
 * `bundle-writer.ts` states, and the heap does not grow with the output (about 150 MB, never held).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { ChunkBuilder } from "../../src/platform/text-chunks.ts";
import { OBSERVABLE_WINDOW, StixBundleWriter, type StixInput, type StixWriterStats } from "../../src/modules/exports/stix/index.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const DOCUMENTS = 200_000;
const PER_EVENT = 500;
const ORGS = 5;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${hex(n, 12)}`;

const TYPES: [string, (i: number) => string, boolean][] = [
  ["ip-dst", (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, true],
  ["domain", (i) => `host${i}.example.com`, true],
  ["sha256", (i) => hex(i, 64), true],
  ["filename|md5", (i) => `sample${i}.exe|${hex(i, 32)}`, true],
  ["url", (i) => `https://example.com/${i}?a='b'`, false],
  ["text", (i) => `note ${i}`, false],
];
const TAGS = ["tlp:green", "tlp:amber+strict", 'misp-galaxy:mitre-attack-pattern="Phishing - T1566"', "campaign:x"];

/** Events of PER_EVENT attributes, each event's document first: a generator, so nothing of the input is held. */
function* documents(): Generator<StixInput> {
  for (let i = 0; i < DOCUMENTS; i++) {
    const e = Math.floor(i / PER_EVENT);
    const event = uuid("0b7a9c7e", e);
    if (i % PER_EVENT === 0) {
      yield {
        index: "svc-events",
        source: {
          uuid: event, info: `Event ${e}`, date: "2024-03-01", timestamp: 1709300000 + e, publish_timestamp: 0, orgc_id: e % ORGS,
          orgc: { uuid: uuid("5f6c1a2b", e % ORGS), name: `Org ${e % ORGS}` }, tags: [{ name: TAGS[e % 2] }], deleted: false,
        },
      };
    }
    const [type, value, toIds] = TYPES[i % TYPES.length];
    yield {
      index: "svc-attributes",
      source: {
        uuid: uuid("5a3c2b1d", i), event_uuid: event, type, value: value(i), category: "Network activity", to_ids: toIds, deleted: false,
        comment: "", timestamp: 1709300000 + i, first_seen: null, last_seen: null, tags: i % 7 === 0 ? [{ name: TAGS[2 + (i % 2)] }] : [], event_orgc_id: e % ORGS,
      },
    };
  }
}

/** The JavaScript heap and the buffers outside it (the packed references are buffers). */
function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface Run {
  bytes: number;
  objects: number;
  /** Memory growth (after collection) between the start and the last document, before the reports are written. */
  retainedBytes: number;
  peak: StixWriterStats;
}

async function run(groupedByEvent: boolean): Promise<Run> {
  const writer = new StixBundleWriter({ bundleId: "bundle--4a8c7f3e-0e0f-4d7a-9c1b-2f5e8d6a1b3c", groupedByEvent });
  let bytes = 0;
  let n = 0;
  let peak = writer.stats();
  const out = new ChunkBuilder();
  gc();
  const before = used();
  for (const doc of documents()) {
    await writer.write(doc, out);
    if (out.full) bytes += out.take().length;
    if (++n % 10_000 === 0) {
      const s = writer.stats();
      if (s.pendingReferenceBytes > peak.pendingReferenceBytes || s.pendingEvents > peak.pendingEvents) peak = s;
    }
  }
  gc();
  const retainedBytes = used() - before;
  const last = writer.stats();
  if (last.pendingReferenceBytes > peak.pendingReferenceBytes || last.pendingEvents > peak.pendingEvents) peak = last;
  bytes += out.take().length;
  for (const chunk of writer.end()) bytes += chunk.length;
  return { bytes, objects: writer.stats().objects, retainedBytes, peak };
}

describe("STIX export of 200 000 documents", () => {
  it("holds one event at a time when documents come grouped by event", async () => {
    const r = await run(true);
    expect(r.objects).toBeGreaterThan(DOCUMENTS);
    expect(r.bytes).toBeGreaterThan(100_000_000);
    // One event's references: PER_EVENT attributes and their relationships, 17 bytes each, doubling buffer.
    expect(r.peak.pendingEvents).toBe(1);
    expect(r.peak.pendingReferenceBytes).toBeLessThanOrEqual(2 * 17 * PER_EVENT * 2);
    // The identities, 2 markings, 1 attack pattern.
    expect(r.peak.sharedObjects).toBe(ORGS + 2 + 1);
    expect(r.peak.recentObservables).toBeLessThanOrEqual(OBSERVABLE_WINDOW);
    expect(r.peak.reportedEvents).toBeLessThan(DOCUMENTS / PER_EVENT);
    // The uuids of the events reported (400) and the recent observable ids: well under 4 MB.
    expect(r.retainedBytes).toBeLessThan(4 * 1024 * 1024);
  }, 60_000);

  it("holds 17 bytes a reference, not the objects, when documents come in any order", async () => {
    const r = await run(false);
    const references = DOCUMENTS + Math.ceil(DOCUMENTS / 7);
    expect(r.peak.pendingEvents).toBe(DOCUMENTS / PER_EVENT);
    expect(r.peak.pendingReferenceBytes).toBeLessThanOrEqual(2 * 17 * references);
    // The packed references (at most 8 MB with their doubling) and 400 events' fields.
    expect(r.retainedBytes).toBeLessThan(12 * 1024 * 1024);
  }, 60_000);
});
