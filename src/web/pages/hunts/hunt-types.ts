import type { HuntIndexTarget, HuntType } from "../../gql/graphql.ts";

export const HUNT_TYPE_LABELS: Record<HuntType, string> = {
  SEARCH: "Lucene search",
  CPE: "CPE (vulnerabilities of a product)",
  RULES: "CVE or advisory id (detection rules)",
  FW_ATTACK_PATTERN: "ATT&CK techniques",
};

export const HUNT_TYPE_SHORT: Record<HuntType, string> = { SEARCH: "Search", CPE: "CPE", RULES: "Rules", FW_ATTACK_PATTERN: "ATT&CK" };

/** The indices each type may read, its default first; cpe and rules hunts read none. */
export const INDEX_TARGETS: Record<HuntType, HuntIndexTarget[]> = {
  SEARCH: ["ATTRIBUTES", "EVENTS", "CORRELATIONS"],
  FW_ATTACK_PATTERN: ["EVENTS", "ATTRIBUTES", "ATTRIBUTES_AND_EVENTS"],
  CPE: [],
  RULES: [],
};

export const INDEX_LABELS: Record<HuntIndexTarget, string> = {
  ATTRIBUTES: "Attributes",
  EVENTS: "Events",
  CORRELATIONS: "Correlations",
  ATTRIBUTES_AND_EVENTS: "Attributes and events",
};

/** `?type=` of /hunts/new: Explore's "save as hunt" sends lucene; the REST and peer names work too. */
const TYPE_PARAMS: Record<string, HuntType> = {
  lucene: "SEARCH",
  search: "SEARCH",
  opensearch: "SEARCH",
  cpe: "CPE",
  rules: "RULES",
  cve: "RULES",
  rulezet: "RULES",
  "fw-attack-pattern": "FW_ATTACK_PATTERN",
  "mitre-attack-pattern": "FW_ATTACK_PATTERN",
  "attack-pattern": "FW_ATTACK_PATTERN",
};

const INDEX_PARAMS: Record<string, HuntIndexTarget> = {
  attributes: "ATTRIBUTES",
  events: "EVENTS",
  correlations: "CORRELATIONS",
  attributes_and_events: "ATTRIBUTES_AND_EVENTS",
};

export interface HuntPrefill {
  huntType: HuntType;
  query: string;
  indexTarget: HuntIndexTarget | null;
  name: string;
}

/** The form's start from /hunts/new?type=lucene&query=…[&index=events][&name=…]. */
export function prefillFrom(search: string): HuntPrefill {
  const params = new URLSearchParams(search);
  const huntType = TYPE_PARAMS[(params.get("type") ?? "").toLowerCase()] ?? "SEARCH";
  const index = INDEX_PARAMS[(params.get("index") ?? "").toLowerCase()];
  const indexTarget = index && INDEX_TARGETS[huntType].includes(index) ? index : (INDEX_TARGETS[huntType][0] ?? null);
  return { huntType, query: params.get("query") ?? "", indexTarget, name: params.get("name") ?? "" };
}

export const QUERY_LABELS: Record<HuntType, string> = {
  SEARCH: "Lucene query",
  CPE: "CPE 2.3 name",
  RULES: "CVE or advisory id",
  FW_ATTACK_PATTERN: "ATT&CK techniques",
};

/** The service judges the id itself (CVE and the advisory schemes it knows) and says what it takes. */
export function vulnerabilityIdProblem(id: string): string | null {
  return id.trim() ? null : "Give a CVE id (CVE-2024-3400) or an advisory id (GHSA-…).";
}
