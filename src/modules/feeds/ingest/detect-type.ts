import net from "node:net";
import { parse as parseDomain } from "tldts";

/**
 * MISP-style indicator detection for freetext (and csv/json cells without a type): refang first
 * (`hxxp`, `[.]`, `(dot)`, `[at]`, ...), then IPs and CIDRs, `ip|port` and `ip:port`, hashes by
 * length, URLs, e-mail addresses, CVE ids, AS numbers, and names: a registrable domain (by the public
 * suffix list) is a `domain`, a name under one a `hostname`. Null for anything else.
 */
export interface Detected {
  type: string;
  value: string;
}

const REFANG: [RegExp, string][] = [
  [/^hxxp(s?):\/\//i, "http$1://"],
  [/^fxp:\/\//i, "ftp://"],
  [/\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}|\s\[?dot\]?\s/gi, "."],
  [/\[@\]|\(@\)|\[at\]|\(at\)|\{at\}/gi, "@"],
  [/\[:\]/g, ":"],
  [/\[\/\]/g, "/"],
];

export function refang(raw: string): string {
  let v = raw.trim().replace(/^["'<(\[]+|["'>)\],;]+$/g, "");
  for (const [re, to] of REFANG) v = v.replace(re, to);
  return v;
}

const HASHES: Record<number, string> = { 32: "md5", 40: "sha1", 56: "sha224", 64: "sha256", 96: "sha384", 128: "sha512" };
const HEX = /^[0-9a-f]+$/i;
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const URL_SCHEME = /^(https?|ftp|sftp|ftps|tcp|udp):\/\/\S+$/i;
const CVE = /^CVE-\d{4}-\d{4,}$/i;
const ASN = /^AS\d{1,10}$/i;

export function detectIndicator(raw: string): Detected | null {
  const v = refang(raw);
  if (v === "" || v.length > 4096 || /\s/.test(v)) return null;
  if (net.isIP(v)) return { type: "ip-dst", value: v };
  const cidr = /^(.+)\/(\d{1,3})$/.exec(v);
  if (cidr && net.isIP(cidr[1]) && Number(cidr[2]) <= (net.isIPv4(cidr[1]) ? 32 : 128)) return { type: "ip-dst", value: v };
  const ipPort = /^(.+)[|:](\d{1,5})$/.exec(v);
  if (ipPort && net.isIPv4(ipPort[1]) && Number(ipPort[2]) <= 65535) return { type: "ip-dst|port", value: `${ipPort[1]}|${ipPort[2]}` };
  const bracketed = /^\[(.+)\]:(\d{1,5})$/.exec(v);
  if (bracketed && net.isIPv6(bracketed[1]) && Number(bracketed[2]) <= 65535) return { type: "ip-dst|port", value: `${bracketed[1]}|${bracketed[2]}` };
  if (HEX.test(v) && HASHES[v.length]) return { type: HASHES[v.length], value: v.toLowerCase() };
  if (URL_SCHEME.test(v)) return { type: "url", value: v };
  if (CVE.test(v)) return { type: "vulnerability", value: v.toUpperCase() };
  if (ASN.test(v)) return { type: "AS", value: v.toUpperCase() };
  if (EMAIL.test(v)) return { type: "email-src", value: v };
  const name = v.replace(/\.$/, "").toLowerCase();
  const d = parseDomain(name, { allowPrivateDomains: false });
  if (d.domain && d.isIcann && d.hostname === name && /^[a-z0-9.-]+$/.test(name)) return { type: name === d.domain ? "domain" : "hostname", value: name };
  // A path without a scheme (evil.com/x.php) is a URL when its host is a known name.
  const slash = name.indexOf("/");
  if (slash > 0) {
    const host = parseDomain(name.slice(0, slash));
    if (host.domain && host.isIcann) return { type: "url", value: v };
  }
  return null;
}
