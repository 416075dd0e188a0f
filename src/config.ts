import path from "node:path";
import { z } from "zod";

/**
 * Every environment variable the service reads, validated once at start and frozen.
 * A bad value stops the start with a message that names the variable (see ConfigError).
 */
const emptyAsUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const httpUrl = z.preprocess(
  emptyAsUndefined,
  z.string().refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), "must be an http(s) URL"),
);
const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().positive();

const schema = z
  .object({
    HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
    PORT: z.preprocess(emptyAsUndefined, port.default(8000)),
    ROLE: z.preprocess(emptyAsUndefined, z.enum(["api", "worker", "all"]).default("all")),
    DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default("./var")),
    DATABASE_URL: z.preprocess(
      emptyAsUndefined,
      z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL").optional(),
    ),
    OPENSEARCH_URL: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .refine((v) => v.split(",").every((u) => URL.canParse(u.trim())), "must be comma-separated URLs")
        .optional(),
    ),
    /** Prepended to the index names (several deployments or test runs on one cluster). */
    OPENSEARCH_INDEX_PREFIX: z.preprocess(
      emptyAsUndefined,
      z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "must be lower-case letters, digits, _ or - (at most 40)").default(""),
    ),
    /** A search running longer is cancelled (OpenSearch timeout, PostgreSQL statement_timeout). */
    SEARCH_TIMEOUT_MS: z.preprocess(emptyAsUndefined, positiveInt.min(100).max(300_000).default(10_000)),
    /**
     * Searches one process runs at once, whoever asks (the PostgreSQL backend's own pool of that many
     * connections, concurrent OpenSearch requests); more wait for a turn within their timeout.
     */
    SEARCH_CONCURRENCY: z.preprocess(emptyAsUndefined, positiveInt.max(64).default(8)),
    STORAGE_ENGINE: z.preprocess(emptyAsUndefined, z.enum(["local", "s3"]).optional()),
    S3_ENDPOINT: z.preprocess(emptyAsUndefined, httpUrl.optional()),
    S3_BUCKET: optionalString,
    S3_REGION: z.preprocess(emptyAsUndefined, z.string().default("us-east-1")),
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    SMTP_URL: z.preprocess(
      emptyAsUndefined,
      z.string().regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL").optional(),
    ),
    MAIL_FROM: z.preprocess(emptyAsUndefined, z.string().default("workbench@localhost")),
    VULN_DB_URL: httpUrl.default("https://vulnerability.circl.lu"),
    RULES_URL: httpUrl.default("https://rulezet.org"),
    GALAXY_SOURCE: z.preprocess(
      emptyAsUndefined,
      z.string().default("https://raw.githubusercontent.com/MISP/misp-galaxy/main"),
    ),
    TAXONOMIES_SOURCE: z.preprocess(
      emptyAsUndefined,
      z.string().default("https://raw.githubusercontent.com/MISP/misp-taxonomies/main"),
    ),
    /** A misp-warninglists checkout (the directory holding lists/) or the base URL of its raw files. */
    WARNINGLISTS_SOURCE: z.preprocess(
      emptyAsUndefined,
      z.string().default("https://raw.githubusercontent.com/MISP/misp-warninglists/main"),
    ),
    JWT_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, "must be at least 32 characters").optional()),
    /**
     * Encrypts stored credentials (sync servers' API keys, AES-256-GCM): 32 bytes as 64 hex characters.
     * Unset: generated at first start and kept in DATA_DIR/secrets-key (mode 0600), like JWT_SECRET.
     */
    SECRETS_KEY: z.preprocess(emptyAsUndefined, z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)").optional()),
    ACCESS_TOKEN_TTL_SECONDS: z.preprocess(emptyAsUndefined, positiveInt.max(86_400).default(900)),
    REFRESH_TOKEN_TTL_DAYS: z.preprocess(emptyAsUndefined, positiveInt.max(365).default(7)),
    ADMIN_EMAIL: z.preprocess(emptyAsUndefined, z.email().optional()),
    ADMIN_PASSWORD: z.preprocess(emptyAsUndefined, z.string().min(8, "must be at least 8 characters").optional()),
    ORG_NAME: z.preprocess(emptyAsUndefined, z.string().max(255).default("Default")),
    PUBLIC_URL: z.preprocess(emptyAsUndefined, httpUrl.optional()),
    LOG_LEVEL: z.preprocess(
      emptyAsUndefined,
      z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    ),
  })
  .superRefine((c, ctx) => {
    if ((c.ADMIN_EMAIL === undefined) !== (c.ADMIN_PASSWORD === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [c.ADMIN_EMAIL === undefined ? "ADMIN_EMAIL" : "ADMIN_PASSWORD"],
        message: "ADMIN_EMAIL and ADMIN_PASSWORD must be set together",
      });
    }
  });

export type RawConfig = z.infer<typeof schema>;

/** The names of every variable the service reads. */
export const CONFIG_VARIABLES = Object.keys(schema.shape) as (keyof RawConfig)[];

export interface Config extends Omit<RawConfig, "STORAGE_ENGINE" | "PUBLIC_URL" | "OPENSEARCH_URL"> {
  STORAGE_ENGINE: "local" | "s3";
  PUBLIC_URL: string;
  OPENSEARCH_URL: string[] | undefined;
  /** DATA_DIR made absolute. */
  dataDir: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue.path[0] ?? "environment"), issue.message);
  }
  const c = parsed.data;
  return Object.freeze({
    ...c,
    STORAGE_ENGINE: c.STORAGE_ENGINE ?? (c.S3_ENDPOINT || c.S3_BUCKET ? "s3" : "local"),
    PUBLIC_URL: (c.PUBLIC_URL ?? `http://${c.HOST.includes(":") ? `[${c.HOST}]` : c.HOST}:${c.PORT}`).replace(/\/+$/, ""),
    OPENSEARCH_URL: c.OPENSEARCH_URL?.split(",").map((u) => u.trim().replace(/\/+$/, "")),
    dataDir: path.resolve(c.DATA_DIR),
  });
}
