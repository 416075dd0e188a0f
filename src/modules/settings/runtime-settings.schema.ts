import { z } from "zod";

/**
 * Runtime settings: namespaced JSON that administrators change without a restart. Each namespace
 * has a schema and defaults (spec 2.3 and 2.5); a stored value replaces its whole namespace.
 */
export const RUNTIME_SETTINGS = {
  retention: z
    .object({
      enabled: z.boolean(),
      period_days: z.number().int().min(1).max(36_500),
      warning_days: z.number().int().min(0).max(36_500),
      exempt_tags: z.array(z.string().min(1).max(255)).max(1000),
      /** purge_deleted removes events soft-deleted longer ago than this (a value stored before it existed gets the default). */
      purge_deleted_after_days: z.number().int().min(1).max(36_500).default(30),
    })
    .strict(),
  notifications: z
    .object({
      email_max_per_hour: z.number().int().min(0).max(100_000),
    })
    .strict(),
  feeds: z
    .object({
      /** CIDRs of loopback, private, link-local and similar ranges that network feeds may reach anyway. */
      allowed_private_networks: z.array(z.string().max(64).regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, "must be a CIDR")).max(100),
      fetch_timeout_seconds: z.number().int().min(1).max(3600),
      max_download_bytes: z.number().int().min(1024).max(2 * 1024 ** 3),
    })
    .strict(),
  correlations: z
    .object({
      max_correlations_per_value: z.number().int().min(1).max(100_000),
      match_types: z.array(z.enum(["term", "cidr", "composite"])).max(3),
    })
    .strict(),
  search: z
    .object({
      /** Searches one user (with all their tokens and API keys) may have running at once per API process; beyond: 429. */
      max_concurrent_per_user: z.number().int().min(1).max(1000),
    })
    .strict(),
  hunts: z
    .object({
      /** Per request to the vulnerability database or the rules service. */
      request_timeout_seconds: z.number().int().min(1).max(600),
      /** Attempts per request when the service is unreachable, too slow, or answers 5xx/429. */
      max_attempts: z.number().int().min(1).max(10),
      /** Largest answer read from an external service (per page). */
      max_response_bytes: z.number().int().min(1024).max(1024 ** 3),
      /** Pages of 100 CVEs a cpe hunt reads at most. */
      max_cpe_pages: z.number().int().min(1).max(10_000),
      /** A run still going after this long is cancelled and recorded as failed. */
      run_timeout_seconds: z.number().int().min(10).max(3600),
    })
    .strict(),
  exports: z
    .object({
      /** Exports of one user queued or running at once; one more is refused with 429 (a schedule's run is skipped). */
      max_active_per_user: z.number().int().min(1).max(100),
    })
    .strict(),
  auth: z
    .object({
      /** Failed logins of one account (from addresses it has not logged in from) before a lockout; 0: no limit. */
      login_max_failures_per_account: z.number().int().min(0).max(1000),
      /** Failed logins from one address (an IPv6 /64), whatever the account, before a lockout; 0: no limit. */
      login_max_failures_per_address: z.number().int().min(0).max(100_000),
      /** Failures are forgotten after this long without a failure or lockout. */
      login_failure_window_seconds: z.number().int().min(1).max(86_400),
      /** The first lockout; each further failure doubles it, up to login_lockout_max_seconds. */
      login_lockout_base_seconds: z.number().int().min(1).max(86_400),
      login_lockout_max_seconds: z.number().int().min(1).max(86_400),
      /** An address the account logged in from within this many days escapes the account's lockout; 0: none does. */
      login_known_address_days: z.number().int().min(0).max(365),
    })
    .strict(),
  taxonomies: z
    .object({
      /** An event is published only with a tag of each enabled taxonomy marked required (MISP's required taxonomies). */
      enforce_required: z.boolean(),
    })
    .strict(),
  mcp: z
    .object({
      /** Longest lifetime GET /mcp/config grants a token (the `expires_in` it accepts, and its default). */
      max_token_lifetime_days: z.number().int().min(1).max(365).default(30),
    })
    .strict(),
} as const;

export type RuntimeNamespace = keyof typeof RUNTIME_SETTINGS;
export type RuntimeSettingValue<N extends RuntimeNamespace> = z.infer<(typeof RUNTIME_SETTINGS)[N]>;

export const RUNTIME_DEFAULTS: { [N in RuntimeNamespace]: RuntimeSettingValue<N> } = {
  retention: { enabled: false, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"], purge_deleted_after_days: 30 },
  notifications: { email_max_per_hour: 10 },
  feeds: { allowed_private_networks: [], fetch_timeout_seconds: 60, max_download_bytes: 512 * 1024 ** 2 },
  correlations: { max_correlations_per_value: 20, match_types: ["term", "cidr", "composite"] },
  // Explore runs four at once (both indices and their histograms); half of SEARCH_CONCURRENCY's
  // default (8), so one user never holds every search turn of a process.
  search: { max_concurrent_per_user: 4 },
  hunts: { request_timeout_seconds: 30, max_attempts: 3, max_response_bytes: 32 * 1024 ** 2, max_cpe_pages: 999, run_timeout_seconds: 900 },
  exports: { max_active_per_user: 1 },
  mcp: { max_token_lifetime_days: 30 },
  taxonomies: { enforce_required: false },
  auth: {
    login_max_failures_per_account: 5,
    login_max_failures_per_address: 20,
    login_failure_window_seconds: 900,
    login_lockout_base_seconds: 60,
    login_lockout_max_seconds: 900,
    login_known_address_days: 30,
  },
};

export function isRuntimeNamespace(ns: string): ns is RuntimeNamespace {
  return Object.hasOwn(RUNTIME_SETTINGS, ns);
}
