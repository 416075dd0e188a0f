/**
 * Cyber-observable objects (SCOs) of an attribute, for the observed-data of what is not exported as
 * an indicator. Their ids are the specification's deterministic ones (uuidv5 of the ID-contributing
 * properties), so the same value gets the same id in every export and from every producer that
 * follows the specification.
 *
 * An SCO has stricter values than a pattern (an `ipv4-addr` value is an address, a `url` an RFC 3986
 * URI, a hash has its length): a value that would make an invalid SCO gives none, and the attribute
 * is exported as a note instead.
 */
import net from "node:net";
import { domainToASCII } from "node:url";
import { attributeFacts, type AddressType, type AttributeFacts } from "./attribute-values.ts";
import { observableId } from "./ids.ts";
import type { Observable } from "./types.ts";

/** Hash values of the algorithms hash-algorithm-ov defines; others only need a legal dictionary key. */
const HASH_VALUE: ReadonlyMap<string, RegExp> = new Map(Object.entries({
  MD5: /^[a-fA-F0-9]{32}$/,
  "SHA-1": /^[a-fA-F0-9]{40}$/,
  "SHA-224": /^[a-fA-F0-9]{56}$/,
  "SHA-256": /^[a-fA-F0-9]{64}$/,
  "SHA-384": /^[a-fA-F0-9]{96}$/,
  "SHA-512": /^[a-fA-F0-9]{128}$/,
  "SHA3-224": /^[a-fA-F0-9]{56}$/,
  "SHA3-256": /^[a-fA-F0-9]{64}$/,
  "SHA3-384": /^[a-fA-F0-9]{96}$/,
  "SHA3-512": /^[a-fA-F0-9]{128}$/,
  SSDEEP: /^[a-zA-Z0-9/+:.]{1,128}$/,
  TLSH: /^[a-zA-Z0-9]{70}$/,
}));
const HASH_KEY = /^[a-zA-Z0-9_-]{3,250}$/;

const validHash = (key: string, value: string) => HASH_KEY.test(key) && (HASH_VALUE.get(key)?.test(value) ?? value !== "");

const HOSTNAME = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
/** An internationalised host name: its IDNA (punycode) form is a host name. */
const validDomain = (v: string) => HOSTNAME.test(domainToASCII(v));

const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** An absolute RFC 3986 URI: a scheme, only the characters the RFC allows, well-formed %-escapes. */
function validUri(v: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/i.test(v) || /%(?![0-9a-f]{2})/i.test(v)) return false;
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}

function validAddress(type: AddressType, value: string): boolean {
  if (type === "domain-name") return validDomain(value);
  // The schema's IPv6 expression has no working form for an embedded IPv4 address (`::ffff:1.2.3.4`).
  if (type === "ipv6-addr") return !value.includes(".");
  return net.isIPv4(value.split("/")[0]);
}

function sco(type: string, contributing: Record<string, unknown>, rest: Record<string, unknown> = {}): Observable {
  return { type, spec_version: "2.1", id: observableId(type, contributing), ...contributing, ...rest };
}

const valueSco = (type: string, value: string) => sco(type, { value });

function file(f: Extract<AttributeFacts, { kind: "file" }>): Observable[] | null {
  // The PE extension needs `pe_type`, which MISP does not record.
  if (f.imphash !== undefined) return null;
  if (f.hash && !validHash(f.hash.key, f.hash.value)) return null;
  const contributing: Record<string, unknown> = {};
  if (f.hash) contributing.hashes = { [f.hash.key]: f.hash.value };
  if (f.name !== undefined) contributing.name = f.name;
  return [sco("file", contributing)];
}

function build(f: AttributeFacts): Observable[] | null {
  switch (f.kind) {
    case "address":
      return validAddress(f.type, f.value) ? [valueSco(f.type, f.value)] : null;
    case "url":
      return validUri(f.value) ? [valueSco("url", f.value)] : null;
    case "email-addr":
      return EMAIL.test(f.value) ? [valueSco("email-addr", f.value)] : null;
    case "email-message":
      // A message id alone is no ID-contributing property: the id would not be deterministic.
      return f.property === "subject" ? [sco("email-message", { subject: f.value }, { is_multipart: false })] : null;
    case "email-attachment":
      return [sco("file", { name: f.name })];
    case "file":
      return file(f);
    case "resolves": {
      if (!validDomain(f.domain) || !validAddress(f.address.type, f.address.value)) return null;
      const address = valueSco(f.address.type, f.address.value);
      return [sco("domain-name", { value: f.domain }, { resolves_to_refs: [address.id] }), address];
    }
    case "endpoint": {
      if (!validAddress(f.address.type, f.address.value)) return null;
      const address = valueSco(f.address.type, f.address.value);
      // MISP does not say which transport; its ports are TCP services in practice (as misp-stix writes them).
      const traffic = sco("network-traffic", { [`${f.side}_ref`]: address.id, [`${f.side}_port`]: f.port, protocols: ["tcp"] });
      return [traffic, address];
    }
    case "autonomous-system":
      return [sco("autonomous-system", { number: f.number })];
    case "mutex":
      return [sco("mutex", { name: f.name })];
    case "registry-key":
      return [sco("windows-registry-key", f.data === undefined ? { key: f.key } : { key: f.key, values: [{ data: f.data }] })];
    case "mac-addr": {
      const mac = f.value.toLowerCase().replace(/-/g, ":");
      return /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(mac) ? [valueSco("mac-addr", mac)] : null;
    }
    case "x509":
      return validHash(f.hashKey, f.value) ? [sco("x509-certificate", { hashes: { [f.hashKey]: f.value } })] : null;
    case "user-agent":
    case "email-header":
    case "rule":
      return null;
  }
}

/** The SCOs of an attribute, the first being the one it describes; null when there are none. */
export function attributeObservables(type: string, value: string, markings: string[] = []): Observable[] | null {
  const facts = attributeFacts(type, value);
  const objects = facts ? build(facts) : null;
  if (!objects) return null;
  return markings.length ? objects.map((o) => ({ ...o, object_marking_refs: markings })) : objects;
}
