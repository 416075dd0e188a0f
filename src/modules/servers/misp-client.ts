import http from "node:http";
import https from "node:https";
import net from "node:net";
import { allowList, guardedLookup, refusedAddress } from "../feeds/index.ts";

/**
 * Requests to a remote MISP's API (`Authorization: <key>`, JSON both ways). The same address policy
 * as network feeds, checked when each connection is made (runtime setting feeds.allowed_private_networks),
 * a deadline, a cap on the bytes read, and no redirects: a redirect would carry the key elsewhere.
 * Messages name the method, origin and path, never the key.
 */
export interface MispClientOptions {
  baseUrl: string;
  authkey: string;
  timeoutMs: number;
  maxBytes: number;
  allowedPrivateNetworks: string[];
}

/** The remote failed: unreachable, refused by the address policy, an error status, too large or not JSON. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export class MispClient {
  private readonly allowed: net.BlockList;
  private readonly base: URL;

  constructor(private readonly opts: MispClientOptions) {
    this.allowed = allowList(opts.allowedPrivateNetworks);
    this.base = new URL(opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`);
  }

  get(path: string): Promise<unknown> {
    return this.request("GET", path);
  }

  post(path: string, body: unknown): Promise<unknown> {
    return this.request("POST", path, body);
  }

  /** A GET answering 404 is null (an event the remote does not have or does not show us). */
  async find(path: string): Promise<unknown> {
    try {
      return await this.get(path);
    } catch (err) {
      if (err instanceof RemoteError && err.status === 404) return null;
      throw err;
    }
  }

  private async request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path, this.base);
    const where = `${method} ${url.origin}${url.pathname}`;
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(literal)) {
      const why = refusedAddress(literal, this.allowed);
      if (why) throw new RemoteError(`${where}: ${why}`);
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { authorization: this.opts.authkey, accept: "application/json", "user-agent": "workbench-sync/1" };
    if (payload) Object.assign(headers, { "content-type": "application/json", "content-length": String(payload.length) });
    const res = await this.send(url, method, headers, payload, where);
    const text = await this.read(res, where);
    if (res.statusCode! < 200 || res.statusCode! >= 300) {
      if (res.statusCode! >= 300 && res.statusCode! < 400) throw new RemoteError(`${where}: HTTP ${res.statusCode} (a redirect: check the server's URL)`, res.statusCode);
      throw new RemoteError(`${where}: HTTP ${res.statusCode}${remoteMessage(text)}`, res.statusCode);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new RemoteError(`${where}: the answer is not JSON (${text.length} bytes)`);
    }
  }

  private send(url: URL, method: string, headers: Record<string, string>, payload: Buffer | undefined, where: string): Promise<http.IncomingMessage> {
    const lookup = guardedLookup(this.allowed, (why) => new RemoteError(`${where}: ${why}`));
    const timeoutMs = this.opts.timeoutMs;
    return new Promise((resolve, reject) => {
      const req = (url.protocol === "https:" ? https : http).request(url, { method, headers, lookup, timeout: timeoutMs }, resolve);
      req.on("timeout", () => req.destroy(new RemoteError(`${where}: no answer within ${timeoutMs} ms`)));
      req.on("error", (err) => reject(err instanceof RemoteError ? err : new RemoteError(`${where}: cannot reach the server: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
      req.end(payload);
    });
  }

  private read(res: http.IncomingMessage, where: string): Promise<string> {
    const max = this.opts.maxBytes;
    return new Promise((resolve, reject) => {
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > max) {
        res.destroy();
        return reject(new RemoteError(`${where}: the answer is ${declared} bytes, more than the ${max} allowed`));
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        if (bytes > max) {
          // Settled before the destroy, whose own events would otherwise say the answer broke off.
          reject(new RemoteError(`${where}: the answer is more than the ${max} bytes allowed`));
          res.destroy();
        } else chunks.push(c);
      });
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      res.on("error", (err) => reject(new RemoteError(`${where}: the answer broke off: ${err.message}`)));
      res.on("aborted", () => reject(new RemoteError(`${where}: the answer broke off`)));
    });
  }
}

/** MISP's error body's message (`{"name", "message", ...}`), short and printable, when there is one. */
function remoteMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; name?: unknown; detail?: unknown };
    const msg = [body.message, body.name, body.detail].find((m) => typeof m === "string");
    return typeof msg === "string" ? `: ${msg.replace(/[^\x20-\x7e]/g, "?").slice(0, 200)}` : "";
  } catch {
    return "";
  }
}
