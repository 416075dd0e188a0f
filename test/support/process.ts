import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { CONFIG_VARIABLES } from "../../src/config.ts";

/**
 * The service as `npm start` runs it: `node --import tsx src/main.ts` in a child process with its
 * own environment. Each child leads a process group of its own (the service and an embedded
 * postgres), so `kill()` can take the whole tree down when a test fails. No vitest imports here:
 * bench/ uses this file too.
 */

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * One process, as `npm start`. The tsx CLI would run the service under a parent process that,
 * sent SIGTERM, relays it and SIGKILLs the service (exit 143, no graceful stop) when the service
 * does not acknowledge it within 30 ms, which a busy machine sometimes fails.
 */
const SERVICE_COMMAND: [string, ...string[]] = [process.execPath, "--import", "tsx", "src/main.ts"];

/** Variables the service reads: never inherited from the test runner, only passed explicitly. */
const SERVICE_VARIABLES: string[] = CONFIG_VARIABLES;

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  /** Label in error messages. */
  name?: string;
  /** Command and arguments instead of `node --import tsx src/main.ts` (the bench runs `npm start`). */
  command?: [string, ...string[]];
}

const live = new Set<ServiceProcess>();

export class ServiceProcess {
  readonly child: ChildProcess;
  readonly name: string;
  readonly startedAt = Date.now();
  stdout = "";
  stderr = "";
  readonly logs: LogLine[] = [];
  exit: Exit | null = null;
  readonly exited: Promise<Exit>;
  private partial = "";
  private readonly watchers = new Set<() => void>();

  constructor(readonly env: Record<string, string>, opts: StartOptions = {}) {
    this.name = opts.name ?? "service";
    const base: Record<string, string | undefined> = { ...process.env };
    for (const v of SERVICE_VARIABLES) delete base[v];
    const [cmd, ...args] = opts.command ?? SERVICE_COMMAND;
    this.child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    live.add(this);
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stdout += chunk;
      const lines = (this.partial + chunk).split("\n");
      this.partial = lines.pop() ?? "";
      for (const line of lines) this.parse(line);
      this.notify();
    });
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        resolve(this.exit);
        this.notify();
      });
      this.child.on("error", (err) => {
        this.stderr += `spawn failed: ${err.message}\n`;
        this.exit ??= { code: null, signal: null };
        live.delete(this);
        resolve(this.exit);
        this.notify();
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get port(): number {
    return Number(this.env.PORT ?? 8000);
  }

  get url(): string {
    return `http://${this.env.HOST ?? "127.0.0.1"}:${this.port}`;
  }

  /** Everything the process printed, for assertions on messages and for failure reports. */
  output(): string {
    return `${this.stdout}${this.partial}\n${this.stderr}`;
  }

  /** The last lines of output, compact (for error messages). */
  tail(lines = 25): string {
    return this.output().trim().split("\n").slice(-lines).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l)).join("\n");
  }

  hasLog(msg: string | RegExp): boolean {
    return this.logs.some((l) => typeof l.msg === "string" && (typeof msg === "string" ? l.msg === msg : msg.test(l.msg)));
  }

  /** Resolves with the first log line matching; rejects if the process exits first or on timeout. */
  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs = 30_000): Promise<LogLine> {
    const test = typeof match === "function" ? match : (l: LogLine) => typeof l.msg === "string" && (typeof match === "string" ? l.msg === match : match.test(l.msg));
    return this.waitFor(() => this.logs.find(test), `log ${String(match)}`, timeoutMs);
  }

  /** Polls GET /healthz until it answers 200; rejects if the process exits first or on timeout. */
  async waitForHealthy(timeoutMs = 60_000): Promise<{ status: number; body: unknown }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exit) throw new Error(`${this.name} exited (${JSON.stringify(this.exit)}) before /healthz answered 200:\n${this.tail()}`);
      const res = await this.healthz().catch(() => null);
      if (res?.status === 200) return res;
      if (Date.now() > deadline) throw new Error(`${this.name}: /healthz not 200 after ${timeoutMs} ms (last: ${JSON.stringify(res)}):\n${this.tail()}`);
      await sleep(100);
    }
  }

  async healthz(): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body };
  }

  /** Waits for the process to exit on its own; kills it and rejects on timeout. */
  async waitForExit(timeoutMs = 30_000): Promise<Exit> {
    const timer = sleep(timeoutMs).then(() => null);
    const exit = await Promise.race([this.exited, timer]);
    if (exit) return exit;
    this.kill();
    throw new Error(`${this.name} did not exit within ${timeoutMs} ms:\n${this.tail()}`);
  }

  /**
   * SIGTERM, then waits; kills the group on timeout. By default to the spawned process; with
   * `toService`, to the node process running src/main.ts itself (as a supervisor would), for
   * wrappers like npm that do not relay signals.
   */
  async stop(timeoutMs = 20_000, opts: { toService?: boolean } = {}): Promise<Exit> {
    if (this.exit) return this.exit;
    const pid = opts.toService ? this.servicePid() : this.pid;
    if (pid === undefined) throw new Error(`${this.name}: no log line with the service pid yet`);
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    return this.waitForExit(timeoutMs);
  }

  signal(sig: NodeJS.Signals): void {
    try {
      process.kill(this.pid, sig);
    } catch {
      /* already gone */
    }
  }

  /** SIGKILL to the whole process group: tsx, the service, and an embedded postgres it started. */
  kill(): void {
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }

  /** The node process running src/main.ts (from its log lines; a wrapper command may run it as a child). */
  servicePid(): number | undefined {
    const line = this.logs.find((l) => typeof l.pid === "number");
    return line?.pid as number | undefined;
  }

  private waitFor<T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = probe();
        if (found !== undefined) return done(() => resolve(found));
        if (this.exit) return done(() => reject(new Error(`${this.name} exited (${JSON.stringify(this.exit)}) before ${what}:\n${this.tail()}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name}: no ${what} after ${timeoutMs} ms:\n${this.tail()}`))), timeoutMs);
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.watchers.delete(check);
        fn();
      };
      this.watchers.add(check);
      check();
    });
  }

  private notify(): void {
    for (const w of [...this.watchers]) w();
  }

  private parse(line: string): void {
    if (!line.startsWith("{")) return;
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (typeof parsed.level === "number") this.logs.push(parsed);
    } catch {
      /* not a log line */
    }
  }
}

export function startService(env: Record<string, string>, opts: StartOptions = {}): ServiceProcess {
  return new ServiceProcess(env, opts);
}

/** Kills every service process still running (after a failed test, and when the runner exits). */
export function killAllServices(): number {
  const n = live.size;
  for (const p of [...live]) p.kill();
  return n;
}

process.once("exit", () => killAllServices());

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Command lines of running processes that mention `text` (e.g. a postgres data directory). */
export function processesMentioning(text: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.includes(text) && !l.includes(" ps -eo"));
}

/** Whether anything accepts TCP connections on host:port (connection refused: false). */
export function isListening(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    sock.setTimeout(3000, () => (sock.destroy(), resolve(false)));
    sock.once("connect", () => (sock.destroy(), resolve(true)));
    sock.once("error", () => resolve(false));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a truthy value. */
export async function eventually<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 30_000, intervalMs = 200): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await sleep(intervalMs);
  }
}
