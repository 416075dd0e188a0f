/**
 * What a MISP attribute's type and value say in STIX terms, once: both the indicator pattern
 * (`patterns.ts`) and the cyber-observable objects (`observables.ts`) are written from this, so the
 * two never disagree on how a type maps.
 */
import net from "node:net";
import { isCompositeType, splitComposite } from "../../attributes/index.ts";

export type AddressType = "ipv4-addr" | "ipv6-addr" | "domain-name";

export type AttributeFacts =
  /** An address or a CIDR range (STIX allows CIDR in `ipv4-addr:value` / `ipv6-addr:value`). */
  | { kind: "address"; type: AddressType; value: string }
  | { kind: "url"; value: string }
  | { kind: "email-addr"; role: "any" | "from" | "to"; value: string }
  | { kind: "email-message"; property: "subject" | "message_id"; value: string }
  | { kind: "email-header"; header: string; value: string }
  | { kind: "email-attachment"; name: string }
  /** `hash.key`: the STIX hash algorithm name (`MD5`, `SHA-256`, ..., or a custom upper-case name). */
  | { kind: "file"; name?: string; hash?: { key: string; value: string }; imphash?: string }
  | { kind: "resolves"; domain: string; address: { type: "ipv4-addr" | "ipv6-addr"; value: string } }
  | { kind: "endpoint"; side: "src" | "dst"; address: { type: AddressType; value: string }; port: number }
  | { kind: "autonomous-system"; number: number }
  | { kind: "mutex"; name: string }
  | { kind: "registry-key"; key: string; data?: string }
  | { kind: "mac-addr"; value: string }
  | { kind: "user-agent"; value: string }
  | { kind: "x509"; hashKey: string; value: string }
  /** A rule in another pattern language (`indicator.pattern_type`), or a STIX pattern written by hand. */
  | { kind: "rule"; patternType: "stix" | "yara" | "snort" | "suricata" | "sigma"; rule: string };

/** MISP hash types and the STIX hash names (hash-algorithm-ov where one exists, upper case otherwise). */
export const HASH_KEYS: ReadonlyMap<string, string> = new Map(Object.entries({
  md5: "MD5",
  sha1: "SHA-1",
  sha224: "SHA-224",
  sha256: "SHA-256",
  sha384: "SHA-384",
  sha512: "SHA-512",
  "sha512/224": "SHA-512/224",
  "sha512/256": "SHA-512/256",
  "sha3-224": "SHA3-224",
  "sha3-256": "SHA3-256",
  "sha3-384": "SHA3-384",
  "sha3-512": "SHA3-512",
  ssdeep: "SSDEEP",
  tlsh: "TLSH",
  authentihash: "AUTHENTIHASH",
  impfuzzy: "IMPFUZZY",
  pehash: "PEHASH",
  telfhash: "TELFHASH",
  vhash: "VHASH",
}));

const RULE_TYPES: ReadonlyMap<string, "stix" | "yara" | "snort" | "suricata" | "sigma"> = new Map([
  ["yara", "yara"],
  ["snort", "snort"],
  ["suricata", "suricata"],
  ["sigma", "sigma"],
  ["stix2-pattern", "stix"],
]);

/** STIX wants full hive names (`HKEY_LOCAL_MACHINE\...`); MISP values mostly use the short ones. */
const HIVES: ReadonlyArray<[RegExp, string]> = [
  [/^HKLM(?=\\|$)/i, "HKEY_LOCAL_MACHINE"],
  [/^HKCU(?=\\|$)/i, "HKEY_CURRENT_USER"],
  [/^HKCR(?=\\|$)/i, "HKEY_CLASSES_ROOT"],
  [/^HKCC(?=\\|$)/i, "HKEY_CURRENT_CONFIG"],
  [/^HKU(?=\\|$)/i, "HKEY_USERS"],
];

export function fullHiveKey(key: string): string {
  for (const [short, full] of HIVES) if (short.test(key)) return key.replace(short, full);
  return key;
}

/** `ipv4-addr` / `ipv6-addr` of an address or CIDR range, null for anything else. */
export function ipType(value: string): "ipv4-addr" | "ipv6-addr" | null {
  const slash = value.indexOf("/");
  const ip = slash < 0 ? value : value.slice(0, slash);
  const family = net.isIP(ip);
  if (family === 0) return null;
  if (slash >= 0) {
    const bits = value.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return null;
  }
  return family === 4 ? "ipv4-addr" : "ipv6-addr";
}

function port(v: string): number | null {
  return /^\d{1,5}$/.test(v) && Number(v) <= 65535 ? Number(v) : null;
}

function composite(type: string, value: string): [string, string] | null {
  if (!isCompositeType(type)) return null;
  const parts = splitComposite(type, value);
  return parts && parts[0].value !== "" && parts[1].value !== "" ? [parts[0].value, parts[1].value] : null;
}

/** The STIX reading of an attribute, or null when STIX has no standard object for it (text, port, ...). */
export function attributeFacts(type: string, value: string): AttributeFacts | null {
  if (value === "") return null;
  switch (type) {
    case "ip-src":
    case "ip-dst": {
      const t = ipType(value);
      return t ? { kind: "address", type: t, value } : null;
    }
    case "domain":
    case "hostname":
      return { kind: "address", type: "domain-name", value };
    case "url":
    case "link":
    case "uri":
      return { kind: "url", value };
    case "email":
      return { kind: "email-addr", role: "any", value };
    case "email-src":
      return { kind: "email-addr", role: "from", value };
    case "email-dst":
      return { kind: "email-addr", role: "to", value };
    case "email-subject":
      return { kind: "email-message", property: "subject", value };
    case "email-message-id":
      return { kind: "email-message", property: "message_id", value };
    case "email-reply-to":
      return { kind: "email-header", header: "Reply-To", value };
    case "email-x-mailer":
      return { kind: "email-header", header: "X-Mailer", value };
    case "email-attachment":
      return { kind: "email-attachment", name: value };
    case "filename":
    case "attachment":
      return { kind: "file", name: value };
    case "imphash":
      return { kind: "file", imphash: value };
    case "malware-sample": {
      // `filename|md5` under a type name without a pipe.
      const i = value.lastIndexOf("|");
      return i > 0 && i < value.length - 1 ? { kind: "file", name: value.slice(0, i), hash: { key: "MD5", value: value.slice(i + 1) } } : null;
    }
    case "AS": {
      const m = /^(?:AS)?\s*(\d{1,10})$/i.exec(value.trim());
      return m && Number(m[1]) <= 4294967295 ? { kind: "autonomous-system", number: Number(m[1]) } : null;
    }
    case "mutex":
      return { kind: "mutex", name: value };
    case "regkey":
      return { kind: "registry-key", key: fullHiveKey(value) };
    case "mac-address":
      return { kind: "mac-addr", value };
    case "user-agent":
      return { kind: "user-agent", value };
    case "x509-fingerprint-md5":
      return { kind: "x509", hashKey: "MD5", value };
    case "x509-fingerprint-sha1":
      return { kind: "x509", hashKey: "SHA-1", value };
    case "x509-fingerprint-sha256":
      return { kind: "x509", hashKey: "SHA-256", value };
  }
  const hashKey = HASH_KEYS.get(type);
  if (hashKey) return { kind: "file", hash: { key: hashKey, value } };
  const patternType = RULE_TYPES.get(type);
  if (patternType) return { kind: "rule", patternType, rule: value };
  return compositeFacts(type, value);
}

function compositeFacts(type: string, value: string): AttributeFacts | null {
  const parts = composite(type, value);
  if (!parts) return null;
  const [left, right] = parts;
  if (type.startsWith("filename|")) {
    const hashType = type.slice("filename|".length);
    if (hashType === "imphash") return { kind: "file", name: left, imphash: right };
    const key = HASH_KEYS.get(hashType);
    return key ? { kind: "file", name: left, hash: { key, value: right } } : null;
  }
  switch (type) {
    case "ip-src|port":
    case "ip-dst|port": {
      const t = ipType(left);
      const p = port(right);
      // A range is no endpoint: network-traffic refers to one address.
      return t && p !== null && !left.includes("/") ? { kind: "endpoint", side: type === "ip-src|port" ? "src" : "dst", address: { type: t, value: left }, port: p } : null;
    }
    case "hostname|port": {
      const p = port(right);
      return p === null ? null : { kind: "endpoint", side: "dst", address: { type: "domain-name", value: left }, port: p };
    }
    case "domain|ip": {
      const t = ipType(right);
      return t && !right.includes("/") ? { kind: "resolves", domain: left, address: { type: t, value: right } } : null;
    }
    case "regkey|value":
      return { kind: "registry-key", key: fullHiveKey(left), data: right };
  }
  return null;
}
