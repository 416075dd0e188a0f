/**
 * Strict IP address / CIDR / port parsing with canonical output.
 * IPv4: exactly four decimal octets 0-255, no leading zeros (so `999.1.1.1` and
 * `010.1.1.1` are rejected, like PHP's FILTER_VALIDATE_IP that MISP uses).
 * IPv6: RFC 4291 text forms (incl. `::` and a trailing dotted IPv4), no zone id;
 * output is RFC 5952 canonical (lowercase, zero-compressed).
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(reason: string): Parsed<T> => ({ ok: false, reason });

export interface ParsedIp {
  version: 4 | 6;
  /** canonical text form */
  text: string;
}

export function parseIPv4(s: string): Parsed<number[]> {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return bad('not a dotted-quad IPv4 address');
  const octets: number[] = [];
  for (let i = 1; i <= 4; i++) {
    const part = m[i];
    if (part.length > 1 && part.startsWith('0')) return bad(`IPv4 octet "${part}" has a leading zero`);
    const n = Number(part);
    if (n > 255) return bad(`IPv4 octet ${n} is out of range 0-255`);
    octets.push(n);
  }
  return ok(octets);
}

/** Returns the eight 16-bit groups. */
export function parseIPv6(s: string): Parsed<number[]> {
  if (s.includes('%')) return bad('IPv6 zone identifiers are not allowed');
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return bad('not an IPv6 address');
  let str = s;
  let tail: number[] = [];
  // trailing embedded IPv4 (e.g. ::ffff:192.0.2.1)
  if (str.includes('.')) {
    const idx = str.lastIndexOf(':');
    if (idx < 0) return bad('not an IPv6 address');
    const v4 = parseIPv4(str.slice(idx + 1));
    if (!v4.ok) return bad('invalid IPv4 part in IPv6 address');
    const o = v4.value;
    tail = [(o[0] << 8) | o[1], (o[2] << 8) | o[3]];
    str = str.slice(0, idx + 1);
    // "::1.2.3.4" -> "::" ; "a:b::1.2.3.4" -> "a:b::" ; "1:2:3:4:5:6:1.2.3.4" -> "1:2:3:4:5:6:"
    if (str.endsWith('::')) {
      /* keep */
    } else if (str.endsWith(':')) str = str.slice(0, -1);
  }
  const dbl = str.split('::');
  if (dbl.length > 2) return bad('IPv6 address has more than one "::"');
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parseGroups(dbl[0]);
  if (head === null) return bad('invalid IPv6 group');
  if (dbl.length === 1) {
    const all = [...head, ...tail];
    if (all.length !== 8) return bad('IPv6 address must have 8 groups');
    return ok(all);
  }
  const rest = parseGroups(dbl[1]);
  if (rest === null) return bad('invalid IPv6 group');
  const known = head.length + rest.length + tail.length;
  if (known > 7) return bad('IPv6 address has too many groups');
  return ok([...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail]);
}

export function formatIPv6(g: readonly number[]): string {
  // IPv4-mapped: ::ffff:a.b.c.d (RFC 5952 section 5)
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `::ffff:${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  }
  // longest run (>= 2) of zero groups, first one on ties
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (a: readonly number[]) => a.map((n) => n.toString(16)).join(':');
  if (bestStart < 0) return hex(g);
  return `${hex(g.slice(0, bestStart))}::${hex(g.slice(bestStart + bestLen))}`;
}

/** A single IPv4 or IPv6 address (no CIDR). */
export function parseIp(s: string): Parsed<ParsedIp> {
  if (s.includes(':')) {
    const v6 = parseIPv6(s);
    return v6.ok ? ok({ version: 6, text: formatIPv6(v6.value) }) : bad(v6.reason);
  }
  const v4 = parseIPv4(s);
  return v4.ok ? ok({ version: 4, text: v4.value.join('.') }) : bad(v4.reason);
}

/**
 * An address or a CIDR block. `/32` (IPv4) and `/128` (IPv6) collapse to the
 * bare address, as MISP does; host bits are kept as given (not masked).
 */
export function parseIpOrCidr(s: string): Parsed<string> {
  const slash = s.indexOf('/');
  if (slash < 0) {
    const ip = parseIp(s);
    return ip.ok ? ok(ip.value.text) : bad(ip.reason);
  }
  const prefixText = s.slice(slash + 1);
  const ip = parseIp(s.slice(0, slash));
  if (!ip.ok) return bad(ip.reason);
  if (!/^\d{1,3}$/.test(prefixText)) return bad('CIDR prefix length must be a number');
  const prefix = Number(prefixText);
  const max = ip.value.version === 4 ? 32 : 128;
  if (prefix > max) return bad(`CIDR prefix /${prefix} exceeds /${max} for IPv${ip.value.version}`);
  return ok(prefix === max ? ip.value.text : `${ip.value.text}/${prefix}`);
}

/** Port number 0-65535, canonical decimal (leading zeros dropped). */
export function parsePort(s: string): Parsed<string> {
  if (!/^\d{1,5}$/.test(s)) return bad('port must be an integer 0-65535');
  const n = Number(s);
  if (n > 65535) return bad(`port ${n} is out of range 0-65535`);
  return ok(String(n));
}

/**
 * Split an `ip|port` value into raw [ip, port] text, accepting the forms MISP's
 * modifyBeforeValidation accepts:
 *   IPv4:  `1.2.3.4|80`, `1.2.3.4:80`
 *   IPv6:  `2001:db8::1|80`, `[2001:db8::1]:80`, `2001:db8::1.80`,
 *          `2001:db8::1 port 80`, `2001:db8::1p80`, `2001:db8::1#80`, and the
 *          ambiguous `2001:db8::1:80` (last group taken as the port, like MISP).
 * Brackets around the address are removed. Returns null when no separator is found.
 */
export function splitIpPort(value: string): [string, string] | null {
  const unbracket = (ip: string) => (ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip);
  const at = (sep: string): [string, string] | null => {
    const i = value.lastIndexOf(sep);
    return i < 0 ? null : [unbracket(value.slice(0, i)), value.slice(i + sep.length)];
  };
  const colons = value.split(':').length - 1;
  if (colons >= 2) {
    if (value.includes('|')) return at('|');
    if (value.startsWith('[')) {
      const close = value.indexOf(']');
      if (close < 0 || value[close + 1] !== ':') return null;
      return [value.slice(1, close), value.slice(close + 2)];
    }
    // separators that cannot occur inside an IPv6 address (a '.' can, in an
    // embedded IPv4 tail, so it is taken last-occurrence only)
    for (const sep of [' port ', '#', 'p']) {
      if (value.includes(sep)) return at(sep);
    }
    if (value.includes('.')) return at('.');
    return at(':');
  }
  if (value.includes('|')) return at('|');
  if (colons === 1) return at(':');
  return null;
}
