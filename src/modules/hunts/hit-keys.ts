import type { HuntType, IndexTarget } from "./hunt-definition.ts";

export type Hit = Record<string, unknown>;

/**
 * A hit's identity across runs (peer notes 3.13): the document uuid for search and
 * fw-attack-pattern hits, `<source attribute uuid>|<target attribute uuid>` for correlations,
 * the CVE id for cpe, the rule's `detail_url` (else its title) for rules. Null: never "new".
 */
export function hitKey(hit: Hit, type: HuntType, target: IndexTarget | null): string | null {
  const str = (k: string) => (typeof hit[k] === "string" && hit[k] !== "" ? (hit[k] as string) : null);
  switch (type) {
    case "search":
      if (target === "correlations") {
        const source = str("source_attribute_uuid");
        const dest = str("target_attribute_uuid");
        return source || dest ? `${source ?? ""}|${dest ?? ""}` : null;
      }
      return str("uuid");
    case "fw-attack-pattern":
      return str("uuid");
    case "cpe":
      return str("cve_id");
    case "rules":
      return str("detail_url") ?? str("title");
  }
}

/**
 * Marks each hit `is_new` (its key was not among the previous run's) and lists the new keys. With
 * no previous result (the first run, or the first after the history was cleared) nothing is new,
 * as the peer does.
 */
export function markNewHits(hits: Hit[], type: HuntType, target: IndexTarget | null, previousKeys: string[] | null): { hits: Hit[]; keys: string[]; newKeys: string[] } {
  const before = previousKeys ? new Set(previousKeys) : null;
  const keys: string[] = [];
  const newKeys = new Set<string>();
  const marked = hits.map((hit) => {
    const key = hitKey(hit, type, target);
    if (key !== null) keys.push(key);
    const fresh = key !== null && before !== null && !before.has(key);
    if (fresh) newKeys.add(key);
    return { ...hit, is_new: fresh };
  });
  return { hits: marked, keys, newKeys: [...newKeys] };
}

export type HuntAlertType = "hunt.result.first_run" | "hunt.result.changed";

/**
 * Spec 6.1 item 4 with the rules: `first_run` on the first run that finds anything;
 * afterwards `changed` when the count differs from the last successful run's, or when the count is
 * the same but new hits appeared. A run that finds nothing before anything was ever found is silent.
 */
export function alertFor(previous: { matchCount: number | null; everMatched: boolean }, total: number, newKeys: readonly string[]): HuntAlertType | null {
  if (!previous.everMatched) return total > 0 ? "hunt.result.first_run" : null;
  if (total !== previous.matchCount) return "hunt.result.changed";
  return newKeys.length > 0 ? "hunt.result.changed" : null;
}
