import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig refuses bad values, naming the variable", () => {
  it.each([
    ["PORT", { PORT: "abc" }],
    ["PORT", { PORT: "70000" }],
    ["PORT", { PORT: "0" }],
    ["PORT", { PORT: "-1" }],
    ["PORT", { PORT: "80.5" }],
    ["ROLE", { ROLE: "x" }],
    ["ROLE", { ROLE: "API" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://x" }],
    ["DATABASE_URL", { DATABASE_URL: "not a url" }],
    ["JWT_SECRET", { JWT_SECRET: "too-short" }],
    ["JWT_SECRET", { JWT_SECRET: "x".repeat(31) }],
    ["ADMIN_PASSWORD", { ADMIN_EMAIL: "admin@example.test" }],
    ["ADMIN_EMAIL", { ADMIN_PASSWORD: "long-enough-password" }],
    ["ADMIN_EMAIL", { ADMIN_EMAIL: "not-an-email", ADMIN_PASSWORD: "long-enough-password" }],
    ["ADMIN_PASSWORD", { ADMIN_EMAIL: "admin@example.test", ADMIN_PASSWORD: "short" }],
    ["STORAGE_ENGINE", { STORAGE_ENGINE: "ftp" }],
    ["VULN_DB_URL", { VULN_DB_URL: "ftp://example.test" }],
    ["RULES_URL", { RULES_URL: "not a url" }],
    ["PUBLIC_URL", { PUBLIC_URL: "example.test" }],
    ["SMTP_URL", { SMTP_URL: "http://mail" }],
    ["OPENSEARCH_INDEX_PREFIX", { OPENSEARCH_INDEX_PREFIX: "Upper-Case" }],
    ["OPENSEARCH_INDEX_PREFIX", { OPENSEARCH_INDEX_PREFIX: "a/b" }],
    ["SEARCH_TIMEOUT_MS", { SEARCH_TIMEOUT_MS: "50" }],
    ["SEARCH_TIMEOUT_MS", { SEARCH_TIMEOUT_MS: "ten" }],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
  ])("%s in %j", (variable, env) => {
    const err = configError(env);
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
    expect(err.message).not.toContain("[object");
  });

  it("does not echo a rejected secret", () => {
    const err = configError({ JWT_SECRET: "my-secret-value" });
    expect(err.message).not.toContain("my-secret-value");
  });
});

describe("loadConfig defaults (conventions.md)", () => {
  const c = loadConfig({});

  it("listens on 127.0.0.1:8000 with everything in one process", () => {
    expect(c.HOST).toBe("127.0.0.1");
    expect(c.PORT).toBe(8000);
    expect(c.ROLE).toBe("all");
  });

  it("keeps data under ./var and uses embedded PostgreSQL and the PostgreSQL search backend", () => {
    expect(c.DATA_DIR).toBe("./var");
    expect(c.dataDir).toBe(path.resolve("./var"));
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.OPENSEARCH_URL).toBeUndefined();
    expect(c.SMTP_URL).toBeUndefined();
  });

  it("uses the documented URLs, sender and organisation", () => {
    expect(c.MAIL_FROM).toBe("workbench@localhost");
    expect(c.VULN_DB_URL).toBe("https://vulnerability.circl.lu");
    expect(c.RULES_URL).toBe("https://rulezet.org");
    expect(c.ORG_NAME).toBe("Default");
    expect(c.PUBLIC_URL).toBe("http://127.0.0.1:8000");
    expect(c.ADMIN_EMAIL).toBeUndefined();
    expect(c.JWT_SECRET).toBeUndefined();
    expect(c.OPENSEARCH_INDEX_PREFIX).toBe("");
    expect(c.SEARCH_TIMEOUT_MS).toBe(10_000);
  });

  it("derives PUBLIC_URL from HOST and PORT unless given", () => {
    expect(loadConfig({ HOST: "0.0.0.0", PORT: "9000" }).PUBLIC_URL).toBe("http://0.0.0.0:9000");
    expect(loadConfig({ HOST: "::1", PORT: "9000" }).PUBLIC_URL).toBe("http://[::1]:9000");
    expect(loadConfig({ PUBLIC_URL: "https://wb.example.test/" }).PUBLIC_URL).toBe("https://wb.example.test");
  });

  it("picks the storage engine: s3 when S3_ENDPOINT or S3_BUCKET is set, else local; explicit wins", () => {
    expect(c.STORAGE_ENGINE).toBe("local");
    expect(loadConfig({ S3_BUCKET: "b" }).STORAGE_ENGINE).toBe("s3");
    expect(loadConfig({ S3_ENDPOINT: "http://127.0.0.1:9000" }).STORAGE_ENGINE).toBe("s3");
    expect(loadConfig({ S3_BUCKET: "b", STORAGE_ENGINE: "local" }).STORAGE_ENGINE).toBe("local");
    expect(loadConfig({ STORAGE_ENGINE: "s3" }).STORAGE_ENGINE).toBe("s3");
  });

  it("treats empty strings as unset", () => {
    const e = loadConfig({ PORT: "", HOST: " ", ROLE: "", DATABASE_URL: "", JWT_SECRET: "", ADMIN_EMAIL: "", ADMIN_PASSWORD: "" });
    expect(e.PORT).toBe(8000);
    expect(e.HOST).toBe("127.0.0.1");
    expect(e.ROLE).toBe("all");
    expect(e.DATABASE_URL).toBeUndefined();
  });

  it("accepts good values", () => {
    const e = loadConfig({
      PORT: "65535",
      ROLE: "worker",
      DATABASE_URL: "postgresql://u@127.0.0.1:5432/db",
      JWT_SECRET: "x".repeat(32),
      ADMIN_EMAIL: "a@example.test",
      ADMIN_PASSWORD: "12345678",
      OPENSEARCH_URL: "http://a:9200/, http://b:9200",
    });
    expect(e.PORT).toBe(65535);
    expect(e.ROLE).toBe("worker");
    expect(e.OPENSEARCH_URL).toEqual(["http://a:9200", "http://b:9200"]);
  });

  it("returns a frozen object", () => {
    expect(Object.isFrozen(c)).toBe(true);
  });
});
