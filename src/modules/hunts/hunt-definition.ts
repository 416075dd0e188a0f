import { errors } from "../../platform/errors.ts";
import { MAX_RESOLVE_TOKENS, splitAttackPatternQuery } from "../galaxies/index.ts";
import { parseUserQuery } from "../search/index.ts";
import { validateCpe } from "../../platform/cpe.ts";
import { isVulnerabilityId } from "./vulnerability-ids.ts";

/** The hunt types and index targets of spec 2.2, and the peer's names that requests may use. */
export const HUNT_TYPES = ["search", "cpe", "rules", "fw-attack-pattern"] as const;
export type HuntType = (typeof HUNT_TYPES)[number];
export const HUNT_TYPE_ALIASES: Record<string, HuntType> = { opensearch: "search", rulezet: "rules", "mitre-attack-pattern": "fw-attack-pattern" };

export const INDEX_TARGETS = ["attributes", "events", "correlations", "attributes_and_events"] as const;
export type IndexTarget = (typeof INDEX_TARGETS)[number];

export const HUNT_STATUSES = ["active", "paused"] as const;
export type HuntStatus = (typeof HUNT_STATUSES)[number];

/** Which index targets each type accepts, its default first; cpe and rules ignore the target. */
const TARGETS_OF: Record<HuntType, readonly IndexTarget[] | null> = {
  search: ["attributes", "events", "correlations"],
  "fw-attack-pattern": ["events", "attributes", "attributes_and_events"],
  cpe: null,
  rules: null,
};

export const MAX_QUERY_LENGTH = 65_536;

export function normaliseHuntType(t: string): HuntType | null {
  return (HUNT_TYPES as readonly string[]).includes(t) ? (t as HuntType) : (HUNT_TYPE_ALIASES[t] ?? null);
}

/**
 * The stored index target: the one asked for when it fits the type (422 otherwise), else the type's
 * default; null for cpe and rules. `keep` is the current target, kept when it still fits.
 */
export function indexTargetFor(type: HuntType, asked: IndexTarget | null | undefined, keep?: IndexTarget | null): IndexTarget | null {
  const allowed = TARGETS_OF[type];
  if (!allowed) return null;
  if (asked !== undefined && asked !== null) {
    if (!allowed.includes(asked)) {
      throw errors.invalidInput(["indexTarget"], `a ${type} hunt searches ${allowed.join(", ")}`, asked);
    }
    return asked;
  }
  return keep && allowed.includes(keep) ? keep : allowed[0];
}

/**
 * Checks that the query can be run as this type: Lucene parses (400 `invalid_query` with the
 * position), a well-formed CPE 2.3, a CVE or advisory id, well-formed technique tokens. Whether
 * technique codes resolve is decided at run time (the galaxy may be imported later).
 */
export function validateQuery(type: HuntType, query: string): void {
  switch (type) {
    case "search":
      parseUserQuery(query);
      return;
    case "cpe": {
      const why = validateCpe(query);
      if (why) throw errors.badRequest(`Not a valid CPE 2.3 string: ${why}. Example: cpe:2.3:o:paloaltonetworks:pan-os`);
      return;
    }
    case "rules":
      if (!isVulnerabilityId(query)) {
        throw errors.badRequest("The query of a rules hunt is one vulnerability id: a CVE id (CVE-2024-3400) or an advisory id (GHSA-…, PYSEC-…, RHSA-…)");
      }
      return;
    case "fw-attack-pattern":
      validateTechniqueTokens(query);
  }
}

const TECHNIQUE_CODE = /^T\d{4}(\.\d{3})?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ATTACK_TAG = /^misp-galaxy:mitre-attack-pattern="[^"\n]+"$/;

function validateTechniqueTokens(query: string): void {
  const tokens = splitAttackPatternQuery(query);
  if (tokens.length === 0) throw errors.badRequest("Give at least one technique code (T1059, T1059.001), cluster uuid or galaxy tag name");
  if (tokens.length > MAX_RESOLVE_TOKENS) throw errors.badRequest(`At most ${MAX_RESOLVE_TOKENS} techniques per hunt; this query has ${tokens.length}`);
  const bad = tokens.filter((t) => !TECHNIQUE_CODE.test(t) && !UUID.test(t) && !ATTACK_TAG.test(t));
  if (bad.length) {
    const shown = bad.slice(0, 20).map((t) => (t.length > 80 ? `${t.slice(0, 80)}…` : t));
    throw errors.badRequest(
      `Not technique codes (T1059, T1059.001), cluster uuids or misp-galaxy:mitre-attack-pattern="…" tags: ${shown.join(", ")}${bad.length > 20 ? ` and ${bad.length - 20} more` : ""}`,
      { invalid: bad.slice(0, 100) },
    );
  }
}
