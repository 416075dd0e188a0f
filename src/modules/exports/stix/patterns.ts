/**
 * STIX patterns of attributes. Every comparison joined by AND inside one `[...]` is on the same
 * object type (the specification requires it), which is why ports and addresses are written as
 * `network-traffic:dst_ref.value` rather than `domain-name:value AND network-traffic:dst_port`.
 */
import { attributeFacts, type AttributeFacts } from "./attribute-values.ts";

export interface StixPattern {
  pattern: string;
  pattern_type: "stix" | "yara" | "snort" | "suricata" | "sigma";
}

/** A string literal of the pattern grammar: only `'` and `\` are escaped (the grammar knows no other escape). */
export function patternString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** A path step: bare when the grammar allows it (letters, digits, `_`), quoted otherwise (`'SHA-256'`). */
export function pathStep(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : patternString(name);
}

type Comparison = [path: string, literal: string];

const str = (path: string, value: string): Comparison => [path, patternString(value)];
const int = (path: string, value: number): Comparison => [path, String(value)];

function comparisons(f: Exclude<AttributeFacts, { kind: "rule" }>): Comparison[] {
  switch (f.kind) {
    case "address":
      return [str(`${f.type}:value`, f.value)];
    case "url":
      return [str("url:value", f.value)];
    case "email-addr":
      if (f.role === "from") return [str("email-message:from_ref.value", f.value)];
      if (f.role === "to") return [str("email-message:to_refs[*].value", f.value)];
      return [str("email-addr:value", f.value)];
    case "email-message":
      return [str(`email-message:${f.property}`, f.value)];
    case "email-header":
      return [str(`email-message:additional_header_fields.${pathStep(f.header)}`, f.value)];
    case "email-attachment":
      return [str("email-message:body_multipart[*].body_raw_ref.name", f.name)];
    case "file": {
      const out: Comparison[] = [];
      if (f.name !== undefined) out.push(str("file:name", f.name));
      if (f.hash) out.push(str(`file:hashes.${pathStep(f.hash.key)}`, f.hash.value));
      if (f.imphash !== undefined) out.push(str("file:extensions.'windows-pebinary-ext'.imphash", f.imphash));
      return out;
    }
    case "resolves":
      return [str("domain-name:value", f.domain), str("domain-name:resolves_to_refs[*].value", f.address.value)];
    case "endpoint":
      return [
        str(`network-traffic:${f.side}_ref.type`, f.address.type),
        str(`network-traffic:${f.side}_ref.value`, f.address.value),
        int(`network-traffic:${f.side}_port`, f.port),
      ];
    case "autonomous-system":
      return [int("autonomous-system:number", f.number)];
    case "mutex":
      return [str("mutex:name", f.name)];
    case "registry-key":
      return f.data === undefined
        ? [str("windows-registry-key:key", f.key)]
        : [str("windows-registry-key:key", f.key), str("windows-registry-key:values[*].data", f.data)];
    case "mac-addr":
      return [str("mac-addr:value", f.value.toLowerCase())];
    case "user-agent":
      return [str("network-traffic:extensions.'http-request-ext'.request_header.'User-Agent'", f.value)];
    case "x509":
      return [str(`x509-certificate:hashes.${pathStep(f.hashKey)}`, f.value)];
  }
}

export function factsPattern(f: AttributeFacts): StixPattern {
  if (f.kind === "rule") return { pattern: f.rule, pattern_type: f.patternType };
  return { pattern: `[${comparisons(f).map(([path, literal]) => `${path} = ${literal}`).join(" AND ")}]`, pattern_type: "stix" };
}

/** The indicator pattern of an attribute, or null when its type has none. */
export function attributePattern(type: string, value: string): StixPattern | null {
  const facts = attributeFacts(type, value);
  return facts ? factsPattern(facts) : null;
}
