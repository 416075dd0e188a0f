/**
 * What tags become in STIX: TLP tags become marking definitions, MITRE ATT&CK galaxy tags become
 * attack patterns. Every tag name also stays a label of what it tags.
 */
import { derivedUuid } from "./ids.ts";
import { TIMELESS } from "./time.ts";
import type { AttackPattern, MarkingDefinition } from "./types.ts";

/** The extension of the TLP 2.0 markings (oasis-open/cti-stix-common-objects, extension-definition-specifications/tlp-2.0). */
export const TLP2_EXTENSION = "extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d";

const tlp1 = (level: string, uuid: string): MarkingDefinition => ({
  type: "marking-definition",
  spec_version: "2.1",
  id: `marking-definition--${uuid}`,
  created: "2017-01-20T00:00:00.000Z",
  definition_type: "tlp",
  name: `TLP:${level.toUpperCase()}`,
  definition: { tlp: level },
});

/** TLP 2.0 levels without a TLP 1.0 counterpart, as the TLP 2.0 extension defines them (ids and all). */
const tlp2 = (level: string, uuid: string): MarkingDefinition => ({
  type: "marking-definition",
  spec_version: "2.1",
  id: `marking-definition--${uuid}`,
  created: "2022-10-01T00:00:00.000Z",
  name: `TLP:${level.toUpperCase()}`,
  extensions: { [TLP2_EXTENSION]: { extension_type: "property-extension", tlp_2_0: level } },
});

/**
 * The specification's own TLP markings for the four TLP 1.0 levels (consumers know their ids), the
 * TLP 2.0 ones for `clear` and `amber+strict`. `tlp:clear` is TLP 2.0's name for white, but it gets
 * its own marking: it says which TLP version the producer meant.
 */
const TLP: ReadonlyMap<string, MarkingDefinition> = new Map([
  ["white", tlp1("white", "613f2e26-407d-48c7-9eca-b8e91df99dc9")],
  ["green", tlp1("green", "34098fce-860f-48ae-8e50-ebd3cc5e41da")],
  ["amber", tlp1("amber", "f88d31f6-486f-44da-b317-01333bde0b82")],
  ["red", tlp1("red", "5e57c739-391a-4eb3-b6be-7d15ca92d5ed")],
  ["clear", tlp2("clear", "94868c89-83c2-464b-929b-a1a8aa3c8487")],
  ["amber+strict", tlp2("amber+strict", "939a9414-2ddd-4d32-a0cd-375ea402b003")],
]);

/** The marking of a `tlp:<level>` tag (any case), null for other tags. */
export function tlpMarking(tag: string): MarkingDefinition | null {
  const m = /^tlp:\s*(.+)$/i.exec(tag.trim());
  return (m && TLP.get(m[1].toLowerCase())) || null;
}

/**
 * Galaxy tags of ATT&CK techniques: `mitre-attack-pattern` and the older per-matrix galaxies
 * (`mitre-enterprise-attack-attack-pattern`, `mitre-mobile-attack-attack-pattern`, ...).
 */
const ATTACK_TAG = /^misp-galaxy:mitre-(?:[a-z-]+-)?attack-pattern="(.+)"$/;
/** The technique id MISP appends to the cluster value: `Spearphishing Attachment - T1566.001`. */
const TECHNIQUE_ID = /^(.*?)\s+-\s+(T\d{4}(?:\.\d{3})?)$/;

export function attackPatternOfTag(tag: string): AttackPattern | null {
  const m = ATTACK_TAG.exec(tag);
  if (!m) return null;
  const value = m[1];
  const t = TECHNIQUE_ID.exec(value);
  const name = t ? t[1] : value;
  const techniqueId = t ? t[2] : null;
  const pattern: AttackPattern = {
    type: "attack-pattern",
    spec_version: "2.1",
    // One object per technique, whichever galaxy (or spelling of its name) the tag came from.
    id: `attack-pattern--${derivedUuid("attack-pattern", techniqueId ?? value)}`,
    created: TIMELESS,
    modified: TIMELESS,
    name,
  };
  if (techniqueId) {
    pattern.external_references = [
      { source_name: "mitre-attack", external_id: techniqueId, url: `https://attack.mitre.org/techniques/${techniqueId.replace(".", "/")}/` },
    ];
  }
  return pattern;
}

/** Markings of a list of tags, without repeats, in tag order. */
export function markingsOfTags(tags: string[]): MarkingDefinition[] {
  const out = new Map<string, MarkingDefinition>();
  for (const t of tags) {
    const m = tlpMarking(t);
    if (m) out.set(m.id, m);
  }
  return [...out.values()];
}

export function attackPatternsOfTags(tags: string[]): AttackPattern[] {
  const out = new Map<string, AttackPattern>();
  for (const t of tags) {
    const p = attackPatternOfTag(t);
    if (p && !out.has(p.id)) out.set(p.id, p);
  }
  return [...out.values()];
}
