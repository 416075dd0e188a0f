/** Stored credentials (src/platform/secret-box.ts) and SECRETS_KEY's validation. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { SecretBox, secretBox } from "../../src/platform/secret-box.ts";

describe("SecretBox", () => {
  const box = new SecretBox(crypto.randomBytes(32));

  it("opens what it sealed, with a fresh nonce each time and no plain text in the sealed value", () => {
    const a = box.seal("the-remote-key", "servers.authkey");
    const b = box.seal("the-remote-key", "servers.authkey");
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:/);
    expect(Buffer.from(a.slice(3), "base64").toString("latin1")).not.toContain("the-remote-key");
    expect(box.open(a, "servers.authkey")).toBe("the-remote-key");
  });

  it("refuses another key, another purpose and an altered value", () => {
    const sealed = box.seal("k", "servers.authkey");
    expect(() => new SecretBox(crypto.randomBytes(32)).open(sealed, "servers.authkey")).toThrow();
    expect(() => box.open(sealed, "feeds.headers")).toThrow();
    const raw = Buffer.from(sealed.slice(3), "base64");
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`v1:${raw.toString("base64")}`, "servers.authkey")).toThrow();
    expect(() => box.open("plain", "servers.authkey")).toThrow();
  });

  it("keeps a generated key in DATA_DIR (mode 0600) and reads it back", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-secret-"));
    try {
      const sealed = secretBox(undefined, dir).seal("k", "p");
      const file = path.join(dir, "secrets-key");
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(new SecretBox(Buffer.from(fs.readFileSync(file, "utf8"), "hex")).open(sealed, "p")).toBe("k");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes SECRETS_KEY as 64 hex characters only", () => {
    expect(loadConfig({ SECRETS_KEY: "ab".repeat(32) }).SECRETS_KEY).toBe("ab".repeat(32));
    expect(() => loadConfig({ SECRETS_KEY: "short" })).toThrow(ConfigError);
  });
});
