import crypto from "node:crypto";

/** The first node of OPENSEARCH_URL, when tests may use OpenSearch. */
export const OPENSEARCH = (process.env.OPENSEARCH_URL ?? "").split(",")[0]?.trim() || undefined;

/**
 * The search backends a test runs against: PostgreSQL always, OpenSearch when OPENSEARCH_URL is
 * set. `env()` configures a service for one of them (a fresh index prefix each call on OpenSearch).
 */
export const SEARCH_BACKENDS: { name: "postgres" | "opensearch"; env: () => Record<string, string> }[] = [
  { name: "postgres", env: () => ({}) },
  ...(OPENSEARCH ? [{ name: "opensearch" as const, env: () => ({ OPENSEARCH_URL: OPENSEARCH!, OPENSEARCH_INDEX_PREFIX: `t${crypto.randomBytes(4).toString("hex")}-` }) }] : []),
];
