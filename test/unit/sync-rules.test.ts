/** The pull and push rules over MISP JSON (src/modules/servers/sync-rules.ts). */
import { describe, expect, it } from "vitest";
import { forRemote, indexEntry, pullTakes, pushTakes } from "../../src/modules/servers/sync-rules.ts";

const REMOTE_ORG = "11111111-1111-4111-8111-111111111111";
const OTHER_ORG = "22222222-2222-4222-8222-222222222222";
/** A roaming group (MISP: no server restriction) owned by OTHER_ORG with these members. */
const group = (...members: string[]) => ({ uuid: "33333333-3333-4333-8333-333333333333", roaming: true, Organisation: { uuid: OTHER_ORG }, SharingGroupOrg: members.map((uuid) => ({ Organisation: { uuid } })) });

const entry = (over: Record<string, unknown> = {}) =>
  indexEntry({ uuid: "AAAAAAAA-aaaa-4aaa-8aaa-aaaaaaaaaaaa", timestamp: "100", published: true, info: "x", distribution: "3", Orgc: { name: "CIRCL", uuid: OTHER_ORG }, EventTag: [{ Tag: { name: "tlp:green" } }], ...over })!;

describe("pull rules", () => {
  it("reads an index entry, refusing what is not an event", () => {
    expect(entry()).toMatchObject({ uuid: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", timestamp: 100, published: true, tags: ["tlp:green"] });
    expect(indexEntry({ uuid: "nope", timestamp: "1" })).toBeNull();
    expect(indexEntry({ uuid: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", timestamp: "soon" })).toBeNull();
    expect(indexEntry([1, 2])).toBeNull();
  });

  it("takes published events only by default, and applies since, tags and organisations", () => {
    expect(pullTakes({}, entry())).toBe(true);
    expect(pullTakes({}, entry({ published: false }))).toBe(false);
    expect(pullTakes({ publishedOnly: false }, entry({ published: false }))).toBe(true);
    expect(pullTakes({ since: 101 }, entry())).toBe(false);
    expect(pullTakes({ tags: { include: ["TLP:GREEN"] } }, entry())).toBe(true);
    expect(pullTakes({ tags: { include: ["tlp:red"] } }, entry())).toBe(false);
    expect(pullTakes({ tags: { exclude: ["tlp:green"] } }, entry())).toBe(false);
    expect(pullTakes({ orgs: { include: [OTHER_ORG] } }, entry())).toBe(true);
    expect(pullTakes({ orgs: { exclude: ["circl"] } }, entry())).toBe(false);
  });
});

describe("push rules", () => {
  const event = (over: Record<string, unknown> = {}) => ({
    uuid: "e", published: true, distribution: "3", Orgc: { name: "Us" }, Tag: [{ name: "tlp:green" }, { name: "internal:only", local: true }],
    Attribute: [
      { uuid: "a0", distribution: "0" },
      { uuid: "a1", distribution: "1" },
      { uuid: "a3", distribution: "3", Tag: [{ name: "kept" }, { name: "mine", local: true }], Sighting: [{ uuid: "s" }] },
      { uuid: "a4-in", distribution: "4", SharingGroup: group(REMOTE_ORG) },
      { uuid: "a4-out", distribution: "4", SharingGroup: group() },
      { uuid: "a5", distribution: "5" },
    ],
    Object: [{ uuid: "o0", distribution: "0", Attribute: [{ uuid: "oa" }] }, { uuid: "o2", distribution: "2", Attribute: [{ uuid: "oa0", distribution: "0" }, { uuid: "oa5", distribution: "5" }] }],
    ...over,
  });

  it("never sends distribution 0 or a sharing group without the remote organisation", () => {
    expect(forRemote(event({ distribution: "0" }), REMOTE_ORG, {})).toBeNull();
    expect(forRemote(event({ distribution: "4", SharingGroup: group() }), REMOTE_ORG, {})).toBeNull();
    expect(forRemote(event({ distribution: "4" }), REMOTE_ORG, {})).toBeNull();
    expect(forRemote(event({ distribution: "4", SharingGroup: group(REMOTE_ORG) }), REMOTE_ORG.toUpperCase(), {})).not.toBeNull();
  });

  it("sends a sharing group that is not roaming to an internal server only, as MISP's group that lists this instance alone", () => {
    for (const roaming of [false, 0, "0", null, undefined, "yes"]) {
      const home = { ...group(REMOTE_ORG), roaming };
      expect(forRemote(event({ distribution: "4", SharingGroup: home }), REMOTE_ORG, {}), String(roaming)).toBeNull();
      expect(forRemote(event({ distribution: "4", SharingGroup: home }), REMOTE_ORG, {}, true), String(roaming)).not.toBeNull();
      const attrs = (forRemote(event({ Attribute: [{ uuid: "a", distribution: "4", SharingGroup: home }] }), REMOTE_ORG, {}) as { Attribute: unknown[] }).Attribute;
      expect(attrs, String(roaming)).toEqual([]);
    }
    for (const roaming of [true, 1, "1"]) expect(forRemote(event({ distribution: "4", SharingGroup: { ...group(REMOTE_ORG), roaming } }), REMOTE_ORG, {})).not.toBeNull();
    // Internal or roaming, the organisation must still be a member; a hostile block is refused, not thrown on.
    expect(forRemote(event({ distribution: "4", SharingGroup: { ...group(), roaming: false } }), REMOTE_ORG, {}, true)).toBeNull();
    for (const hostile of ["x", 4, [], { roaming: true, SharingGroupOrg: "all" }, { roaming: true, SharingGroupOrg: [null, 1, { Organisation: null }] }])
      expect(forRemote(event({ distribution: "4", SharingGroup: hostile }), REMOTE_ORG, {}, true)).toBeNull();
  });

  it("leaves out what may not go, drops local tags and sightings, caps distributions", () => {
    const out = forRemote(event(), REMOTE_ORG, { maxDistribution: 1 }) as { distribution: string; Tag: unknown[]; Attribute: Record<string, unknown>[]; Object: Record<string, unknown>[] };
    expect(out.distribution).toBe("1");
    expect(out.Tag).toEqual([{ name: "tlp:green" }]);
    // Community only stays home unless the server is internal.
    expect(out.Attribute.map((a) => [a.uuid, a.distribution])).toEqual([["a3", "1"], ["a4-in", "4"], ["a5", "5"]]);
    expect(out.Attribute[0].Tag).toEqual([{ name: "kept" }]);
    expect(JSON.parse(JSON.stringify(out.Attribute[0]))).not.toHaveProperty("Sighting");
    expect(out.Object.map((o) => o.uuid)).toEqual(["o2"]);
    expect((out.Object[0].Attribute as { uuid: string }[]).map((a) => a.uuid)).toEqual(["oa5"]);
    expect(out.Object[0].distribution).toBe("1");
  });

  it("takes published events only by default, and applies tags and organisations", () => {
    expect(pushTakes({}, event())).toBe(true);
    expect(pushTakes({}, event({ published: false }))).toBe(false);
    expect(pushTakes({ publishedOnly: false }, event({ published: false }))).toBe(true);
    expect(pushTakes({ tags: { exclude: ["tlp:green"] } }, event())).toBe(false);
    expect(pushTakes({ orgs: { include: ["them"] } }, event())).toBe(false);
  });
});
