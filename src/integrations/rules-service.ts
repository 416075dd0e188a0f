import { getJson, UpstreamError, type HttpJsonOptions } from "./http-json.ts";

/**
 * The detection-rules service of rules hunts (Rulezet, `{RULES_URL}`):
 * `GET /api/rule/public/search_rules_by_cve?cve_ids=<id, lower-cased>`. Its answer has been
 * `{"results": [rule, ...]}` and, in other versions, `{"count", "rules": [rule, ...]}` or rules
 * grouped per id (`{"rules": {"<id>": [rule, ...]}}`); all three are read. Anything else, an
 * `error` key among them, fails the lookup: it must never read as "no rules".
 */
export async function searchRulesByVulnerability(baseUrl: string, id: string, http: Omit<HttpJsonOptions, "service">): Promise<Record<string, unknown>[]> {
  const service = "the rules service";
  const url = `${baseUrl.replace(/\/+$/, "")}/api/rule/public/search_rules_by_cve?cve_ids=${encodeURIComponent(id.toLowerCase())}`;
  const reply = await getJson(url, { ...http, service });
  const body = reply && typeof reply === "object" && !Array.isArray(reply) ? (reply as Record<string, unknown>) : null;
  if (!body) throw new UpstreamError(service, "the answer is not a JSON object");
  const list = Array.isArray(body.results) ? body.results : Array.isArray(body.rules) ? body.rules : groupedRules(body.rules);
  if (!list) {
    const why = typeof body.error === "string" ? `it answered an error: ${body.error.slice(0, 300)}` : `the answer holds no list of rules (keys: ${Object.keys(body).slice(0, 10).join(", ")})`;
    throw new UpstreamError(service, why);
  }
  const rules = list.filter((r): r is Record<string, unknown> => !!r && typeof r === "object" && !Array.isArray(r));
  if (rules.length !== list.length) throw new UpstreamError(service, "the list of rules holds something that is not a rule object");
  return rules;
}

function groupedRules(v: unknown): unknown[] | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const groups = Object.values(v as Record<string, unknown>);
  return groups.every(Array.isArray) ? groups.flat() : null;
}
