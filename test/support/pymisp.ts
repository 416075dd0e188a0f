import { spawn } from "node:child_process";
import path from "node:path";
import { SHARED_DATA } from "./shared-data.ts";

/** The shared PyMISP (../shared/clients), put on python3's path by `runPython`. */
export const PYMISP_CLIENTS = path.join(path.dirname(SHARED_DATA), "clients");

/** A script of test/misp/. */
export const pymispScript = (name: string) => path.join(import.meta.dirname, "../misp", name);

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The machine's python3 with the shared PyMISP importable: `args` after the interpreter, `stdin` written and closed. */
export function runPython(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", args, { env: { ...process.env, PYTHONPATH: PYMISP_CLIENTS, ...opts.env }, stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  });
}

/** `runPython` for a script that prints its answer as JSON on its last line; any other exit is an error with the end of stderr. */
export async function runPythonJson<T>(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<T> {
  const run = await runPython(args, opts);
  if (run.code !== 0) throw new Error(`python3 ${path.basename(args[0] ?? "")} exited ${run.code}: ${run.stdout.slice(-500)} ${run.stderr.slice(-3000)}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as T;
}
