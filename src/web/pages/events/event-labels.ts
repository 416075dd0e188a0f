/** MISP's numeric event and attribute levels in words (the API's documented meanings). */
export const THREAT_LEVELS: Record<number, string> = { 1: "High", 2: "Medium", 3: "Low", 4: "Undefined" };
export const ANALYSIS_LEVELS: Record<number, string> = { 0: "Initial", 1: "Ongoing", 2: "Completed" };
export const DISTRIBUTIONS: Record<number, string> = {
  0: "Your organisation only",
  1: "This community only",
  2: "Connected communities",
  3: "All communities",
  4: "Sharing group",
  5: "Inherit event",
};

export const options = (labels: Record<number, string>, omit: number[] = []) =>
  Object.entries(labels)
    .filter(([value]) => !omit.includes(Number(value)))
    .map(([value, label]) => ({ value, label }));

/** The galaxy cluster a `misp-galaxy:<type>="<value>"` tag names; null for any other tag. */
export function galaxyCluster(tag: string): { galaxy: string; value: string } | null {
  const m = /^misp-galaxy:([^=]+)="(.*)"$/.exec(tag);
  return m ? { galaxy: m[1], value: m[2] } : null;
}

export const ATTACK_GALAXY = "mitre-attack-pattern";
