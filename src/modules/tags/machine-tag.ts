/** A MISP machine tag's parts: `namespace:predicate="value"` or `namespace:predicate`. */
export interface MachineTag {
  namespace: string;
  predicate: string;
  /** null for a two-part tag (`tlp:amber`). */
  value: string | null;
}

const MACHINE_TAG = /^([^:="\s][^:="]*):([^="]+?)(?:="(.*)")?$/s;

/**
 * Parses a tag name as MISP reads machine tags; null for a plain tag (`malware`, `APT 28`). Only the
 * first colon splits namespace from predicate, so `misp-galaxy:mitre-attack-pattern="Spearphishing -
 * T1566"` and values holding colons or `=` parse whole. A value's quotes are not unescaped: MISP
 * stores them as written.
 */
export function parseMachineTag(name: string): MachineTag | null {
  const m = MACHINE_TAG.exec(name);
  if (!m) return null;
  const predicate = m[2]!.trim();
  if (!predicate) return null;
  return { namespace: m[1]!.trim(), predicate, value: m[3] ?? null };
}
