import crypto from "node:crypto";

/** The first node of OPENSEARCH_URL, when tests may use OpenSearch. */
export const OPENSEARCH = (process.env.OPENSEARCH_URL ?? "").split(",")[0]?.trim() || undefined;

const prefixes = new Set<string>();

/**
 * A fresh OpenSearch index prefix for a service under test. Its indices and templates are deleted
 * when the test file ends: a developer's node would otherwise collect them run after run, up to its
 * shard limit (1,000 per node), when creating an index starts to fail.
 */
export function opensearchPrefix(): string {
  const prefix = `t${crypto.randomBytes(4).toString("hex")}-`;
  prefixes.add(prefix);
  return prefix;
}

/**
 * Deletes the indices and templates of the prefixes handed out so far. test/support/per-file.ts runs
 * it after each test file: this module is evaluated once per worker (files share modules), so a hook
 * registered here would only follow the first file.
 */
export async function deleteOpensearchPrefixes(): Promise<void> {
  if (!OPENSEARCH) return;
  for (const prefix of prefixes) {
    // Wildcard deletes are allowed by default (action.destructive_requires_name is false).
    for (const path of [`/${prefix}*`, `/_index_template/${prefix}*`]) {
      const res = await fetch(new URL(path, OPENSEARCH), { method: "DELETE" });
      if (!res.ok && res.status !== 404) throw new Error(`DELETE ${path}: ${res.status} ${await res.text()}`);
    }
  }
  prefixes.clear();
}

/**
 * The search backends a test runs against: PostgreSQL always, OpenSearch when OPENSEARCH_URL is
 * set. `env()` configures a service for one of them (a fresh index prefix each call on OpenSearch).
 */
export const SEARCH_BACKENDS: { name: "postgres" | "opensearch"; env: () => Record<string, string> }[] = [
  { name: "postgres", env: () => ({}) },
  ...(OPENSEARCH ? [{ name: "opensearch" as const, env: () => ({ OPENSEARCH_URL: OPENSEARCH!, OPENSEARCH_INDEX_PREFIX: opensearchPrefix() }) }] : []),
];
