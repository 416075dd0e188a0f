import crypto from "node:crypto";
import dns from "node:dns";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { byteLimit } from "../../../platform/byte-limit.ts";

/**
 * Network feed downloads: http(s) only, a deadline, a size cap, conditional requests, at most five
 * redirects (the feed's headers, its credentials, go only to the feed's own origin: a redirect
 * elsewhere continues without them, as browsers and curl do), and an address policy checked when each connection is made (so a name that resolves
 * differently the second time cannot reach an internal address): loopback, private, link-local,
 * carrier-grade NAT, documentation, multicast and reserved ranges are refused unless listed in
 * `allowedPrivateNetworks`.
 */
export interface DownloadOptions {
  tmpDir: string;
  headers?: Record<string, string>;
  etag?: string | null;
  lastModified?: string | null;
  timeoutMs: number;
  maxBytes: number;
  allowedPrivateNetworks: string[];
}

export type Download = { notModified: true } | { notModified: false; file: string; etag: string | null; lastModified: string | null };

export class DownloadError extends Error {}

const SPECIAL_V4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4"];
const SPECIAL_V6 = ["::/127", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b::/96", "2001:db8::/32", "100::/64"];
const special = new net.BlockList();
for (const c of SPECIAL_V4) special.addSubnet(c.split("/")[0], Number(c.split("/")[1]), "ipv4");
for (const c of SPECIAL_V6) special.addSubnet(c.split("/")[0], Number(c.split("/")[1]), "ipv6");

export function allowList(cidrs: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const c of cidrs) {
    const [addr, bits] = c.split("/");
    const family = net.isIPv4(addr) ? "ipv4" : net.isIPv6(addr) ? "ipv6" : null;
    if (family) list.addSubnet(addr, Number(bits), family);
  }
  return list;
}

/** Why an address may not be reached, or null. IPv4-mapped IPv6 addresses are judged as IPv4. */
export function refusedAddress(address: string, allowed: net.BlockList): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const addr = mapped ? mapped[1] : address;
  const family = net.isIPv4(addr) ? "ipv4" : "ipv6";
  if (!special.check(addr, family) || allowed.check(addr, family)) return null;
  return `${addr} is a loopback, private or reserved address (allow it in the runtime setting feeds.allowed_private_networks)`;
}

/**
 * A DNS lookup for http(s).request that refuses, when the connection is made, a name resolving to any
 * address the policy refuses (so a name cannot be re-pointed between a check and the connection).
 */
export function guardedLookup(allowed: net.BlockList, refusal: (why: string) => Error): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, "", 4);
      for (const a of addresses) {
        const why = refusedAddress(a.address, allowed);
        if (why) return callback(refusal(why), "", 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export async function download(url: string, opts: DownloadOptions): Promise<Download> {
  const allowed = allowList(opts.allowedPrivateNetworks);
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  let current = parseUrl(url);
  const origin = current.origin;
  let leftOrigin = false;
  for (let hop = 0; hop <= 5; hop++) {
    if (current.protocol !== "http:" && current.protocol !== "https:") throw new DownloadError(`only http and https URLs can be fetched, not ${current.protocol}`);
    const literal = current.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(literal)) {
      const why = refusedAddress(literal, allowed);
      if (why) throw new DownloadError(why);
    }
    leftOrigin ||= current.origin !== origin;
    const res = await request(current, leftOrigin ? { ...opts, headers: {} } : opts, allowed, deadline, hop === 0);
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
      res.resume();
      const location = res.headers.location;
      if (!location) throw new DownloadError(`HTTP ${res.statusCode} without a Location`);
      current = parseUrl(location, current);
      continue;
    }
    if (res.statusCode === 304) {
      res.resume();
      return { notModified: true };
    }
    if (res.statusCode !== 200) {
      res.resume();
      throw new DownloadError(`HTTP ${res.statusCode} from ${current.origin}${current.pathname}`);
    }
    const declared = Number(res.headers["content-length"]);
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      res.destroy();
      throw new DownloadError(`the response is ${declared} bytes, more than the ${opts.maxBytes} allowed`);
    }
    await fs.promises.mkdir(opts.tmpDir, { recursive: true });
    const file = path.join(opts.tmpDir, `download-${crypto.randomUUID()}`);
    const cap = byteLimit(opts.maxBytes, () => new DownloadError(`the response is more than the ${opts.maxBytes} bytes allowed`));
    try {
      await pipeline(res, cap, fs.createWriteStream(file), { signal: deadline });
    } catch (err) {
      await fs.promises.rm(file, { force: true });
      throw err instanceof DownloadError ? err : new DownloadError(deadline.aborted ? `no complete answer within ${opts.timeoutMs} ms` : `download failed: ${(err as Error).message}`);
    }
    return { notModified: false, file, etag: header(res.headers.etag), lastModified: header(res.headers["last-modified"]) };
  }
  throw new DownloadError("more than 5 redirects");
}

function parseUrl(url: string, base?: URL): URL {
  try {
    return new URL(url, base);
  } catch {
    throw new DownloadError(`not a valid URL: ${url.slice(0, 200)}`);
  }
}

const header = (v: string | string[] | undefined) => (typeof v === "string" ? v.slice(0, 500) : null);

function request(url: URL, opts: DownloadOptions, allowed: net.BlockList, signal: AbortSignal, conditional: boolean): Promise<http.IncomingMessage> {
  const headers: Record<string, string> = { "user-agent": "workbench-feeds/1", accept: "*/*", ...(opts.headers ?? {}) };
  if (conditional && opts.etag) headers["if-none-match"] = opts.etag;
  if (conditional && opts.lastModified) headers["if-modified-since"] = opts.lastModified;
  const lookup = guardedLookup(allowed, (why) => new DownloadError(why));
  return new Promise((resolve, reject) => {
    const req = (url.protocol === "https:" ? https : http).request(url, { method: "GET", headers, lookup, signal, timeout: opts.timeoutMs }, resolve);
    req.on("timeout", () => req.destroy(new DownloadError(`no answer within ${opts.timeoutMs} ms`)));
    req.on("error", (err) => reject(err instanceof DownloadError ? err : new DownloadError(signal.aborted ? `no answer within ${opts.timeoutMs} ms` : `cannot reach ${url.host}: ${err.message}`)));
    req.end();
  });
}
