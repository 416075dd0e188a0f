/**
 * IP addresses and CIDR blocks, validated and canonicalised in JS before they reach PostgreSQL's
 * `inet` casts. Canonical form (also what is stored): Node's inet_ntop output, with IPv4-mapped
 * IPv6 addresses as plain IPv4 (OpenSearch's `ip` type treats them as the same address), so an
 * exact address is a GIN-indexed JSONB containment test.
 */
import net from "node:net";

/** A valid IPv4/IPv6 address (zone ids rejected), canonicalised; otherwise null. */
export function parseIp(s: string): string | null {
  const t = s.trim();
  const family = net.isIP(t);
  if (family === 0) return null;
  const canonical = new net.SocketAddress({ address: t, family: family === 4 ? "ipv4" : "ipv6" }).address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(canonical);
  return mapped ? mapped[1]! : canonical;
}

/** `addr/prefix` (or a bare address, as a full-length prefix) as a CIDR string; otherwise null. */
export function parseCidr(s: string): string | null {
  const t = s.trim();
  const slash = t.indexOf("/");
  if (slash === -1) {
    const ip = parseIp(t);
    return ip === null ? null : `${ip}/${net.isIPv4(ip) ? 32 : 128}`;
  }
  const rawAddr = t.slice(0, slash);
  const addr = parseIp(rawAddr);
  const prefix = t.slice(slash + 1);
  if (addr === null || !/^\d{1,3}$/.test(prefix)) return null;
  let bits = Number(prefix);
  // An IPv4-mapped block (::ffff:10.0.0.0/104) becomes the IPv4 block.
  if (net.isIPv4(addr) && net.isIPv6(rawAddr.trim())) bits -= 96;
  const max = net.isIPv4(addr) ? 32 : 128;
  if (bits < 0 || bits > max) return null;
  return `${addr}/${bits}`;
}
