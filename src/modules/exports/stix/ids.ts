/**
 * Deterministic STIX identifiers, so exporting the same data twice gives the same ids and a consumer
 * updates what it already holds instead of duplicating it.
 *
 * `src/modules/feeds/ingest/derived-uuids.ts` has a uuidv5, but it is private to the feeds and keyed
 * by an instance secret (deliberately unpredictable); ids here must be the same on every instance,
 * so this file has its own.
 */
import crypto from "node:crypto";

/**
 * Namespace of the ids this exporter derives (identities, attack patterns, relationships, and
 * objects whose MISP uuid is not a valid STIX uuid). Fixed forever: changing it changes every
 * derived id of every future export.
 */
export const EXPORT_NAMESPACE = "79cea972-ee51-4db0-9539-4e88b70e2af0";

/** The namespace the STIX 2.1 specification (section 2.9) gives for cyber-observable ids. */
export const SCO_NAMESPACE = "00abedb4-aa42-466c-9c01-fed23315a9b7";

/** What the STIX identifier schema accepts after `<type>--`: versions 1-5 and the RFC 4122 variant only. */
const STIX_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** RFC 9562 version 5: SHA-1 of the namespace's 16 bytes and the name. */
export function uuidV5(namespace: string, name: string): string {
  const digest = crypto.createHash("sha1").update(uuidBytes(namespace)).update(name, "utf8").digest();
  const b = digest.subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  return formatUuid(b);
}

export function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ""), "hex");
}

export function formatUuid(b: Uint8Array): string {
  const hex = Buffer.from(b.buffer, b.byteOffset, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Derived ids are namespaced by what they name, so two kinds of object never collide. */
export const derivedUuid = (kind: string, name: string) => uuidV5(EXPORT_NAMESPACE, `${kind}:${name}`);

/**
 * The uuid of the object exported for a MISP entity: its own uuid when STIX accepts it (MISP writes
 * v4 uuids, but imported data may carry others, e.g. v7 or upper case), otherwise one derived from it.
 */
export function entityUuid(kind: string, misp: string): string {
  const lower = misp.toLowerCase();
  return STIX_UUID.test(lower) ? lower : derivedUuid(kind, lower);
}

/**
 * JSON canonicalization (RFC 8785) for the values SCO ids are computed from: strings, integers,
 * arrays and objects, where it is JSON with keys sorted by UTF-16 code units and no whitespace.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** An SCO's id as the specification computes it: uuidv5 of its ID-contributing properties. */
export const observableId = (type: string, contributing: Record<string, unknown>) => `${type}--${uuidV5(SCO_NAMESPACE, canonicalJson(contributing))}`;
