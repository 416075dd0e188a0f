/** Secrets generated once and kept in DATA_DIR (src/platform/data-dir-secret.ts) and its two users. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveJwtSecret } from "../../src/auth/jwt.ts";
import { dataDirSecret } from "../../src/platform/data-dir-secret.ts";
import { secretBox } from "../../src/platform/secret-box.ts";
import { ROOT } from "../support/process.ts";

const isHex64 = (text: string) => /^[0-9a-f]{64}$/.test(text);

/**
 * A process that loads the helper, says "ready", and on "go" from its standard input resolves the
 * secret and prints it: the parent says "go" to all at once, so they race on the first start.
 */
function racer(dataDir: string) {
  const script = `
    import { dataDirSecret } from "./src/platform/data-dir-secret.ts";
    process.stdout.write("ready\\n");
    process.stdin.once("data", () => { process.stdout.write(dataDirSecret(${JSON.stringify(dataDir)}, "raced", (s) => /^[0-9a-f]{64}$/.test(s)) + "\\n"); process.exit(0); });
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const ready = new Promise<void>((resolve) => child.stdout.on("data", (chunk: Buffer) => ((out += chunk), out.startsWith("ready\n") && resolve())));
  const secret = new Promise<string>((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve(out.slice("ready\n".length).trim()) : reject(new Error(`racer exited ${code}`)))),
  );
  return { ready, secret, go: () => child.stdin.write("go\n") };
}

describe("dataDirSecret", () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wb-secret-")), "data");
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it("creates the directory and a 0600 file at first call, then reads the same secret back", () => {
    const first = dataDirSecret(dir, "s", isHex64);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.statSync(path.join(dir, "s")).mode & 0o777).toBe(0o600);
    expect(dataDirSecret(dir, "s", isHex64)).toBe(first);
    expect(fs.readdirSync(dir)).toEqual(["s"]);
  });

  it("gives processes starting at once on one DATA_DIR the same secret", async () => {
    const racers = Array.from({ length: 4 }, () => racer(dir));
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.go();
    const secrets = await Promise.all(racers.map((r) => r.secret));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toBe(fs.readFileSync(path.join(dir, "raced"), "utf8"));
    expect(fs.statSync(path.join(dir, "raced")).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(["raced"]);
  }, 60_000);

  it("refuses a file that fails validation and leaves it as it was", () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "jwt-secret"), "too-short\n");
    fs.writeFileSync(path.join(dir, "secrets-key"), "not hex at all");
    expect(() => resolveJwtSecret(undefined, dir)).toThrow(/jwt-secret does not hold a valid secret/);
    expect(() => secretBox(undefined, dir)).toThrow(/secrets-key does not hold a valid secret/);
    expect(fs.readFileSync(path.join(dir, "jwt-secret"), "utf8")).toBe("too-short\n");
    expect(fs.readFileSync(path.join(dir, "secrets-key"), "utf8")).toBe("not hex at all");
  });

  it("leaves DATA_DIR alone when the secret is configured", () => {
    expect(resolveJwtSecret("x".repeat(32), dir)).toBe("x".repeat(32));
    expect(fs.existsSync(dir)).toBe(false);
  });
});
