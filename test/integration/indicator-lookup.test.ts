/**
 * Explore's bulk lookup (GraphQL lookupIndicators): real MISP events imported through the API and
 * attributes written through it, looked up by values pasted as analysts paste them (defanged, in
 * capitals, composites written whole), under the distribution rule: another organisation's private
 * values are reported absent. Hostile input: too many or too long values and NUL are 422s.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // comalign.pro, first_seen 2026-06-26
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4";
const feedEvent = (uuid: string) => JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8"));

interface Lookup {
  input: string;
  value: string;
  detectedType: string | null;
  found: boolean;
  count: number;
  eventCount: number;
  types: string[];
  firstSeen: string | null;
  lastSeen: string | null;
  events: { uuid: string; info: string; organisation: string }[];
}

const LOOKUP = `query($values: [String!]!) {
  lookupIndicators(values: $values) { input value detectedType found count eventCount types firstSeen lastSeen events { uuid info organisation } }
}`;

describe("bulk indicator lookup", () => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // the admin's organisation
  let outsider: TestUser; // another organisation
  let mine: string;
  let community: string;
  let theirs: string;
  const sha256 = "a".repeat(63) + "b";

  const lookup = async (user: TestUser | null, values: string[]) => (await app.http.graphql<{ lookupIndicators: Lookup[] }>(LOOKUP, { values }, user?.token)).body;
  const ok = async (user: TestUser, values: string[]): Promise<Lookup[]> => {
    const body = await lookup(user, values);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data!.lookupIndicators;
  };
  const addAttribute = async (user: TestUser, event: string, json: Record<string, unknown>) => {
    const res = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: event, ...json } });
    expect(res.status, res.text).toBe(201);
  };

  beforeAll(async () => {
    app = await startTestApp("indicator-lookup", { ROLE: "all" });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, ["events:read", "attributes:read"]);
    outsider = await createUser(app, admin, ["events:read", "attributes:read", "events:create", "attributes:create"], await createOrganisation(app, admin, "Other Org"));
    for (const uuid of [VOLTA, METACOIN]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: feedEvent(uuid) });
      expect(res.status, res.text).toBe(201);
    }
    mine = (await app.http.post("/events/", { token: admin.token, json: { info: "lookup: defanged indicators", distribution: 0 } })).body.uuid;
    await addAttribute(admin, mine, { type: "url", value: "http://evil.com" });
    await addAttribute(admin, mine, { type: "ip-dst", value: "1.2.3.4", first_seen: "2021-03-04T05:06:07Z", last_seen: "2021-05-06T00:00:00Z" });
    await addAttribute(admin, mine, { type: "ip-dst|port", value: "5.6.7.8|443" });
    await addAttribute(admin, mine, { type: "filename|sha256", value: `dropper.exe|${sha256}` });
    community = (await app.http.post("/events/", { token: admin.token, json: { info: "lookup: community", distribution: 1 } })).body.uuid;
    await addAttribute(admin, community, { type: "domain", value: "lookup-shared.example" });
    await addAttribute(admin, community, { type: "domain", value: "lookup-org-only.example", distribution: 0 });
    await addAttribute(admin, community, { type: "ip-dst", value: "1.2.3.4" });
    theirs = (await app.http.post("/events/", { token: outsider.token, json: { info: "outsider private", distribution: 0 } })).body.uuid;
    await addAttribute(outsider, theirs, { type: "domain", value: "outsider-private.example" });
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("refangs values as feeds do and says where each is, with its types, count and first and last seen", async () => {
    const [url, ip, domain, upper, absent] = await ok(analyst, ["hxxp://evil[.]com", "1.2.3[.]4", "comalign.pro", "COMALIGN[.]PRO", "not-there.example"]);
    expect(url).toMatchObject({ input: "hxxp://evil[.]com", value: "http://evil.com", detectedType: "url", found: true, count: 1, types: ["url"] });
    expect(url!.events).toEqual([{ uuid: mine, info: "lookup: defanged indicators", organisation: expect.any(String) }]);
    // In two events; first and last seen from the attributes' first_seen/last_seen, or their timestamps.
    expect(ip).toMatchObject({ value: "1.2.3.4", detectedType: "ip-dst", found: true, count: 2, eventCount: 2, types: ["ip-dst"], firstSeen: "2021-03-04T05:06:07.000Z" });
    expect(Date.now() - Date.parse(ip!.lastSeen!)).toBeLessThan(600_000);
    expect(ip!.events.map((e) => e.uuid).sort()).toEqual([mine, community].sort());
    const volta = feedEvent(VOLTA).Event;
    expect(domain).toMatchObject({ value: "comalign.pro", found: true, count: 1, types: ["domain"], firstSeen: "2026-06-26T00:00:00.000Z" });
    expect(domain!.events).toEqual([{ uuid: VOLTA, info: volta.info, organisation: volta.Orgc.name }]);
    expect(upper).toMatchObject({ input: "COMALIGN[.]PRO", value: "comalign.pro", found: true });
    expect(absent).toMatchObject({ value: "not-there.example", found: false, count: 0, eventCount: 0, types: [], firstSeen: null, lastSeen: null, events: [] });
  });

  it("matches composites as correlations do: either part, the pair written whole, never a bare port", async () => {
    const [pair, colon, port, hash, file] = await ok(analyst, ["5.6.7.8|443", "5.6.7.8:443", "443", sha256.toUpperCase(), "dropper.exe"]);
    expect(pair).toMatchObject({ found: true, types: ["ip-dst|port"] });
    expect(colon).toMatchObject({ value: "5.6.7.8|443", detectedType: "ip-dst|port", found: true });
    expect(port).toMatchObject({ found: false });
    expect(hash).toMatchObject({ value: sha256, detectedType: "sha256", found: true, types: ["filename|sha256"] });
    expect(file).toMatchObject({ found: true, types: ["filename|sha256"] });
  });

  it("answers every value in the order given, repeats and blanks included, and a list of 1,000 at once", async () => {
    const answers = await ok(analyst, ["comalign.pro", "", "  ", "comalign.pro"]);
    expect(answers.map((a) => [a.input, a.found])).toEqual([["comalign.pro", true], ["", false], ["  ", false], ["comalign.pro", true]]);
    const metacoin = feedEvent(METACOIN).Event.Attribute.map((a: { value: string }) => a.value) as string[];
    const many = [...metacoin, ...Array.from({ length: 1000 - metacoin.length }, (_, i) => `absent-${i}.example`)];
    const started = performance.now();
    const all = await ok(analyst, many);
    const took = performance.now() - started;
    expect(all).toHaveLength(1000);
    expect(all.filter((a) => a.found).map((a) => a.input).sort()).toEqual([...metacoin].sort());
    expect(all.find((a) => a.found)!.events[0]!.uuid).toBe(METACOIN);
    expect(took).toBeLessThan(5_000);
  });

  it("lists at most 5 events per value, the most recently changed first, and counts them all", async () => {
    const uuids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const e = await app.http.post("/events/", { token: admin.token, json: { info: `lookup: spread ${i}`, distribution: 0 } });
      expect(e.status, e.text).toBe(201);
      uuids.push(e.body.uuid);
      await addAttribute(admin, e.body.uuid, { type: "domain", value: "spread.example" });
    }
    // Their last changes, spread out (written in the same second through the API): the 5th, 3rd, 1st, 7th and 6th are the newest.
    const order = [5, 1, 6, 2, 7, 3, 4];
    for (const [i, uuid] of uuids.entries()) await app.booted.ctx.db.pool.query("UPDATE events SET timestamp = $1 WHERE uuid = $2", [1_700_000_000 + order[i]! * 1000, uuid]);
    const [spread] = await ok(analyst, ["spread.example"]);
    expect(spread).toMatchObject({ found: true, count: 7, eventCount: 7 });
    expect(spread!.events).toHaveLength(5);
    expect(spread!.events.map((e) => uuids.indexOf(e.uuid))).toEqual([4, 2, 0, 6, 5]);
  });

  it("reports another organisation's private values as absent (the distribution rule), its shared ones as found", async () => {
    const [own, orgOnly, shared, ip, mineOnly] = await ok(outsider, ["outsider-private.example", "lookup-org-only.example", "lookup-shared.example", "1.2.3.4", "hxxp://evil[.]com"]);
    expect(own).toMatchObject({ found: true, events: [{ uuid: theirs, info: "outsider private", organisation: "Other Org" }] });
    expect(orgOnly).toMatchObject({ found: false, events: [] });
    expect(shared).toMatchObject({ found: true, events: [{ uuid: community }] });
    // Only the community event's copy: the count, events and dates leave out the private event's.
    expect(ip).toMatchObject({ found: true, count: 1, eventCount: 1, events: [{ uuid: community }] });
    expect(ip!.firstSeen).not.toBe("2021-03-04T05:06:07.000Z");
    expect(mineOnly).toMatchObject({ found: false });
    expect((await ok(analyst, ["outsider-private.example"]))[0]).toMatchObject({ found: false });
    expect((await ok(admin, ["outsider-private.example"]))[0]).toMatchObject({ found: true });
  });

  it("refuses hostile input: too many values, too long ones, NUL (422); anonymous 401, missing scope 403", async () => {
    for (const values of [Array.from({ length: 10_000 }, (_, i) => `v${i}`), Array.from({ length: 1001 }, () => "x"), ["x".repeat(1025)], ["evil\u0000.com"]]) {
      const body = await lookup(analyst, values);
      expect(body.errors?.[0]?.extensions, JSON.stringify(body.errors)?.slice(0, 200)).toMatchObject({ status: 422 });
      expect(body.data ?? null).toBeNull();
    }
    expect(await ok(analyst, ["x".repeat(1024)])).toHaveLength(1);
    expect(await ok(analyst, [])).toEqual([]);
    expect((await lookup(null, ["comalign.pro"])).errors?.[0]?.extensions).toMatchObject({ status: 401 });
    const eventsOnly = await createUser(app, admin, ["events:read"]);
    expect((await lookup(eventsOnly, ["comalign.pro"])).errors?.[0]?.extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
  });
});
