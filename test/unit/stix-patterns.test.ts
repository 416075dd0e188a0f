/** The pure pieces of the STIX export: patterns, observables, tags, ids, the pattern grammar. */
import { describe, expect, it } from "vitest";
import {
  attackPatternOfTag,
  attributeObservables,
  attributePattern,
  canonicalJson,
  entityUuid,
  IdList,
  isValidStixPattern,
  mapAttribute,
  observableId,
  parseStixPattern,
  patternString,
  readAttributeSource,
  tlpMarking,
  uuidV5,
  type AttributeSource,
} from "../../src/modules/exports/stix/index.ts";

describe("attribute patterns", () => {
  it.each([
    ["ip-src", "198.51.100.7", "[ipv4-addr:value = '198.51.100.7']"],
    ["ip-dst", "198.51.100.0/24", "[ipv4-addr:value = '198.51.100.0/24']"],
    ["ip-dst", "2001:db8::1", "[ipv6-addr:value = '2001:db8::1']"],
    ["ip-src", "2001:db8::/32", "[ipv6-addr:value = '2001:db8::/32']"],
    ["domain", "evil.example.com", "[domain-name:value = 'evil.example.com']"],
    ["hostname", "www.evil.example.com", "[domain-name:value = 'www.evil.example.com']"],
    ["url", "https://evil.example.com/gate.php?id=1", "[url:value = 'https://evil.example.com/gate.php?id=1']"],
    ["link", "https://blog.example.org/report", "[url:value = 'https://blog.example.org/report']"],
    ["uri", "/gate.php", "[url:value = '/gate.php']"],
    ["email", "someone@example.com", "[email-addr:value = 'someone@example.com']"],
    ["email-src", "phish@example.com", "[email-message:from_ref.value = 'phish@example.com']"],
    ["email-dst", "victim@example.org", "[email-message:to_refs[*].value = 'victim@example.org']"],
    ["email-subject", "Invoice 42", "[email-message:subject = 'Invoice 42']"],
    ["email-attachment", "invoice.pdf.exe", "[email-message:body_multipart[*].body_raw_ref.name = 'invoice.pdf.exe']"],
    ["email-reply-to", "reply@example.com", "[email-message:additional_header_fields.'Reply-To' = 'reply@example.com']"],
    ["email-message-id", "<a@b>", "[email-message:message_id = '<a@b>']"],
    ["md5", "d41d8cd98f00b204e9800998ecf8427e", "[file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']"],
    ["sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "[file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']"],
    ["sha224", "d".repeat(56), `[file:hashes.'SHA-224' = '${"d".repeat(56)}']`],
    ["sha256", "e".repeat(64), `[file:hashes.'SHA-256' = '${"e".repeat(64)}']`],
    ["sha384", "3".repeat(96), `[file:hashes.'SHA-384' = '${"3".repeat(96)}']`],
    ["sha512", "f".repeat(128), `[file:hashes.'SHA-512' = '${"f".repeat(128)}']`],
    ["sha512/256", "a".repeat(64), `[file:hashes.'SHA-512/256' = '${"a".repeat(64)}']`],
    ["sha3-256", "b".repeat(64), `[file:hashes.'SHA3-256' = '${"b".repeat(64)}']`],
    ["ssdeep", "96:abc+/def:ghi", "[file:hashes.SSDEEP = '96:abc+/def:ghi']"],
    ["tlsh", "T1" + "a".repeat(70), `[file:hashes.TLSH = 'T1${"a".repeat(70)}']`],
    ["authentihash", "c".repeat(64), `[file:hashes.AUTHENTIHASH = '${"c".repeat(64)}']`],
    ["imphash", "fea5902afa6e504a798c73a09b83df5e", "[file:extensions.'windows-pebinary-ext'.imphash = 'fea5902afa6e504a798c73a09b83df5e']"],
    ["filename", "invoice.exe", "[file:name = 'invoice.exe']"],
    ["filename|md5", "invoice.exe|d41d8cd98f00b204e9800998ecf8427e", "[file:name = 'invoice.exe' AND file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']"],
    [
      "filename|sha1",
      "a|b.exe|da39a3ee5e6b4b0d3255bfef95601890afd80709",
      "[file:name = 'a|b.exe' AND file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']",
    ],
    ["filename|sha256", `x.dll|${"e".repeat(64)}`, `[file:name = 'x.dll' AND file:hashes.'SHA-256' = '${"e".repeat(64)}']`],
    ["filename|imphash", "x.dll|fea5902afa6e504a798c73a09b83df5e", "[file:name = 'x.dll' AND file:extensions.'windows-pebinary-ext'.imphash = 'fea5902afa6e504a798c73a09b83df5e']"],
    ["malware-sample", "x.exe|d41d8cd98f00b204e9800998ecf8427e", "[file:name = 'x.exe' AND file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']"],
    [
      "ip-src|port",
      "198.51.100.7|4444",
      "[network-traffic:src_ref.type = 'ipv4-addr' AND network-traffic:src_ref.value = '198.51.100.7' AND network-traffic:src_port = 4444]",
    ],
    [
      "ip-dst|port",
      "198.51.100.7|443",
      "[network-traffic:dst_ref.type = 'ipv4-addr' AND network-traffic:dst_ref.value = '198.51.100.7' AND network-traffic:dst_port = 443]",
    ],
    [
      "ip-dst|port",
      "[2001:db8::1]:8443",
      "[network-traffic:dst_ref.type = 'ipv6-addr' AND network-traffic:dst_ref.value = '2001:db8::1' AND network-traffic:dst_port = 8443]",
    ],
    [
      "hostname|port",
      "c2.example.com|8080",
      "[network-traffic:dst_ref.type = 'domain-name' AND network-traffic:dst_ref.value = 'c2.example.com' AND network-traffic:dst_port = 8080]",
    ],
    ["domain|ip", "evil.example.com|198.51.100.7", "[domain-name:value = 'evil.example.com' AND domain-name:resolves_to_refs[*].value = '198.51.100.7']"],
    ["AS", "AS64496", "[autonomous-system:number = 64496]"],
    ["AS", "64496", "[autonomous-system:number = 64496]"],
    ["mutex", "Global\\MyMutex", "[mutex:name = 'Global\\\\MyMutex']"],
    ["regkey", "HKLM\\Software\\Run", "[windows-registry-key:key = 'HKEY_LOCAL_MACHINE\\\\Software\\\\Run']"],
    ["regkey", "hkcu\\Software", "[windows-registry-key:key = 'HKEY_CURRENT_USER\\\\Software']"],
    [
      "regkey|value",
      "HKCU\\Software\\Run|c:\\evil.exe|x",
      "[windows-registry-key:key = 'HKEY_CURRENT_USER\\\\Software\\\\Run' AND windows-registry-key:values[*].data = 'c:\\\\evil.exe|x']",
    ],
    ["mac-address", "00:1A:2B:3C:4D:5E", "[mac-addr:value = '00:1a:2b:3c:4d:5e']"],
    ["user-agent", "Mozilla/5.0 (X)", "[network-traffic:extensions.'http-request-ext'.request_header.'User-Agent' = 'Mozilla/5.0 (X)']"],
    ["x509-fingerprint-sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "[x509-certificate:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']"],
  ])("%s %s", (type, value, expected) => {
    const p = attributePattern(type, value);
    expect(p).toEqual({ pattern: expected, pattern_type: "stix" });
    expect(() => parseStixPattern(expected)).not.toThrow();
  });

  it.each([
    ["yara", "rule x { condition: true }", "yara"],
    ["snort", 'alert tcp any any -> any 80 (msg:"x";)', "snort"],
    ["sigma", "title: x", "sigma"],
  ])("keeps %s rules in their own language", (type, value, language) => {
    expect(attributePattern(type, value)).toEqual({ pattern: value, pattern_type: language });
  });

  it.each([
    ["text", "free text"],
    ["comment", "a comment"],
    ["port", "443"],
    ["vulnerability", "CVE-2021-44228"],
    ["ip-dst", "not an address"],
    ["ip-dst", "198.51.100.0/33"],
    ["ip-dst|port", "198.51.100.7|99999"],
    ["AS", "ASX"],
    ["filename|md5", "no-pipe"],
    ["domain", ""],
    ["constructor", "x"],
  ])("has no pattern for %s %s", (type, value) => {
    expect(attributePattern(type, value)).toBeNull();
  });

  it.each([
    ["it's", "'it\\'s'"],
    ["C:\\Windows\\", "'C:\\\\Windows\\\\'"],
    ["\\'", "'\\\\\\''"],
    ["'); DROP", "'\\'); DROP'"],
    ["new\nline ] AND [x:y = 'z'", "'new\nline ] AND [x:y = \\'z\\''"],
  ])("escapes %j in string literals", (value, literal) => {
    expect(patternString(value)).toBe(literal);
    const pattern = attributePattern("filename", value)!.pattern;
    const [comparison] = parseStixPattern(pattern).comparisons;
    expect(comparison.value).toEqual({ kind: "string", value });
    expect(parseStixPattern(pattern).comparisons).toHaveLength(1);
  });
});

describe("the pattern grammar", () => {
  it.each([
    "[file:hashes.'SHA-256' = 'aa' OR file:name = 'x']",
    "[ipv4-addr:value = '1.2.3.4'] AND [domain-name:value = 'x'] FOLLOWEDBY [url:value = 'y']",
    "([a:b = 1] OR [a:c = 2]) WITHIN 300 SECONDS",
    "[a:b[0].c != -5 AND a:d IN ('x', 2, true)]",
    "[a:b LIKE 'x%' AND a:c NOT MATCHES '^x$' AND a:e ISSUBSET '10.0.0.0/8' AND NOT EXISTS a:f]",
    "[a:b = t'2024-01-01T00:00:00Z'] START t'2024-01-01T00:00:00Z' STOP t'2024-02-01T00:00:00.5Z' REPEATS 3 TIMES",
    "[a:b = h'ff00' AND a:c = b'AAEC' AND a:d >= 1.5]",
    "[a:b = 'x' /* comment */ AND EXISTS a:c]",
    "[domain-name:value = 'x' OR network-traffic:dst_port = 80]",
  ])("accepts %s", (pattern) => {
    expect(() => parseStixPattern(pattern)).not.toThrow();
  });

  it.each([
    ["file:name = 'x'", /expected \[ or \(/],
    ["[file:name = 'x'", /expected \]/],
    ["[file:name = 'x]", /unterminated string/],
    ["[file:name = 'a\\b']", /invalid escape/],
    ["[file:name = 'a'']", /unterminated string|expected/],
    ["[file:hashes.SHA-256 = 'x']", /expected a comparison operator|property name/],
    ["[file:name = x]", /literal/],
    ["[domain-name:value = 'x' AND network-traffic:dst_port = 80]", /different object types/],
    ["[a:b = 1] WITHIN -5 SECONDS", /positive/],
    ["[a:b = t'2024-13-01T00:00:00Z']", /timestamp/],
    ["[a:b = 1] extra", /unexpected input/],
    ["[a:b = 'x'] AND", /expected \[ or \(/],
  ])("refuses %s", (pattern, message) => {
    expect(isValidStixPattern(pattern)).toBe(false);
    expect(() => parseStixPattern(pattern)).toThrow(message);
  });

  it("reads paths and values", () => {
    expect(parseStixPattern("[windows-registry-key:values[*].data = 'a\\\\b' AND windows-registry-key:key = 'k']").comparisons).toEqual([
      { objectType: "windows-registry-key", path: ["values", "*", "data"], negated: false, operator: "=", value: { kind: "string", value: "a\\b" } },
      { objectType: "windows-registry-key", path: ["key"], negated: false, operator: "=", value: { kind: "string", value: "k" } },
    ]);
  });
});

describe("observables", () => {
  it("gives SCOs the specification's deterministic ids", () => {
    // The identifier example of the STIX 2.1 specification (section 2.7), which the stix2 library computes too.
    expect(attributeObservables("ip-dst", "198.51.100.3")![0].id).toBe("ipv4-addr--28bb3599-77cd-5a82-a950-b5bc3caf07c4");
    expect(attributeObservables("domain", "example.com")![0].id).toBe("domain-name--bedb4899-d24b-5401-bc86-8f6b4cc18ec7");
    expect(canonicalJson({ b: 1, a: { d: "x", c: [2, "y"] } })).toBe('{"a":{"c":[2,"y"],"d":"x"},"b":1}');
    const [file] = attributeObservables("filename|sha256", `a.exe|${"e".repeat(64)}`)!;
    expect(file).toEqual({ type: "file", spec_version: "2.1", id: observableId("file", { hashes: { "SHA-256": "e".repeat(64) }, name: "a.exe" }), hashes: { "SHA-256": "e".repeat(64) }, name: "a.exe" });
  });

  it("links composite values' objects", () => {
    const [traffic, address] = attributeObservables("ip-dst|port", "198.51.100.7|443", ["marking-definition--x"])!;
    expect(address).toMatchObject({ type: "ipv4-addr", value: "198.51.100.7", object_marking_refs: ["marking-definition--x"] });
    expect(traffic).toMatchObject({ type: "network-traffic", dst_ref: address.id, dst_port: 443, protocols: ["tcp"] });
    const [domain, ip] = attributeObservables("domain|ip", "evil.example.com|2001:db8::1")!;
    expect(domain).toMatchObject({ type: "domain-name", value: "evil.example.com", resolves_to_refs: [ip.id] });
    expect(ip).toMatchObject({ type: "ipv6-addr", value: "2001:db8::1" });
    expect(attributeObservables("regkey|value", "HKLM\\Run|x")).toEqual([
      expect.objectContaining({ type: "windows-registry-key", key: "HKEY_LOCAL_MACHINE\\Run", values: [{ data: "x" }] }),
    ]);
  });

  it.each([
    ["url", "evil.example.com/gate.php"],
    ["url", "https://example.com/a b"],
    ["email-src", "not an address"],
    ["md5", "xyz"],
    ["tlsh", `T1${"a".repeat(70)}`],
    ["ip-dst", "::ffff:198.51.100.7"],
    ["domain", "under_score.example.com"],
    ["imphash", "fea5902afa6e504a798c73a09b83df5e"],
    ["text", "x"],
  ])("has none for %s %s, which an SCO cannot hold", (type, value) => {
    expect(attributeObservables(type, value)).toBeNull();
  });
});

describe("tags", () => {
  it.each([
    ["tlp:white", "marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9"],
    ["TLP:GREEN", "marking-definition--34098fce-860f-48ae-8e50-ebd3cc5e41da"],
    ["tlp:amber", "marking-definition--f88d31f6-486f-44da-b317-01333bde0b82"],
    ["tlp:red", "marking-definition--5e57c739-391a-4eb3-b6be-7d15ca92d5ed"],
    ["tlp:clear", "marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487"],
    ["tlp:amber+strict", "marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003"],
  ])("%s is the marking %s", (tag, id) => {
    expect(tlpMarking(tag)?.id).toBe(id);
  });

  it.each(["tlp:ex:chr", "tlp:constructor", "tlp", "pap:red"])("%s is no TLP marking", (tag) => {
    expect(tlpMarking(tag)).toBeNull();
  });

  it("reads ATT&CK techniques from galaxy tags", () => {
    const p = attackPatternOfTag('misp-galaxy:mitre-attack-pattern="Spearphishing Attachment - T1566.001"')!;
    expect(p).toMatchObject({
      type: "attack-pattern",
      name: "Spearphishing Attachment",
      external_references: [{ source_name: "mitre-attack", external_id: "T1566.001", url: "https://attack.mitre.org/techniques/T1566/001/" }],
    });
    expect(attackPatternOfTag('misp-galaxy:mitre-enterprise-attack-attack-pattern="Spearphishing Attachment - T1566.001"')!.id).toBe(p.id);
    expect(attackPatternOfTag('misp-galaxy:mitre-attack-pattern="Something without id"')).toMatchObject({ name: "Something without id" });
    expect(attackPatternOfTag('misp-galaxy:mitre-attack-pattern="Something without id"')!.external_references).toBeUndefined();
    expect(attackPatternOfTag('misp-galaxy:threat-actor="APT28"')).toBeNull();
  });
});

describe("ids", () => {
  it("computes RFC 9562 version 5 uuids", () => {
    // RFC 9562 appendix A.4's example: the DNS namespace and www.example.com.
    expect(uuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.example.com")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
  });

  it("reuses MISP uuids STIX accepts and derives the others", () => {
    expect(entityUuid("indicator", "5A3C2B1D-0E0F-4A1B-8C2D-3E4F5A6B7C8D")).toBe("5a3c2b1d-0e0f-4a1b-8c2d-3e4f5a6b7c8d");
    // Version 7 (not accepted by the STIX identifier pattern).
    const derived = entityUuid("indicator", "01890a5d-ac96-774b-bcce-b302099a8057");
    expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(entityUuid("indicator", "01890a5d-ac96-774b-bcce-b302099a8057")).toBe(derived);
    expect(entityUuid("observed-data", "01890a5d-ac96-774b-bcce-b302099a8057")).not.toBe(derived);
  });

  it("packs report references", () => {
    const list = new IdList();
    const ids = Array.from({ length: 50 }, (_, i) => `${["indicator", "note", "relationship"][i % 3]}--${uuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", String(i))}`);
    for (const id of ids) list.push(id);
    expect([...list]).toEqual(ids);
    expect(list.length).toBe(50);
    expect(() => list.push("bundle--6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toThrow();
  });
});

describe("one attribute", () => {
  const attribute = (over: Partial<AttributeSource>): AttributeSource => ({
    ...readAttributeSource({
      uuid: "5a3c2b1d-0e0f-4a1b-8c2d-3e4f5a6b7c8d", event_uuid: "0b7a9c7e-6f1d-4c52-9a43-1f0e2d3c4b5a", type: "domain", value: "evil.example.com",
      category: "Network activity", to_ids: true, timestamp: 1709300000, tags: [{ name: "tlp:green" }, { name: "kill-chain:delivery" }],
    })!,
    ...over,
  });

  it("is an indicator when it is for detection", () => {
    const { primary, observables } = mapAttribute(attribute({ comment: "C2" }), { createdByRef: "identity--5a3c2b1d-0e0f-4a1b-8c2d-3e4f5a6b7c8d" });
    expect(observables).toEqual([]);
    expect(primary).toEqual({
      type: "indicator", id: "indicator--5a3c2b1d-0e0f-4a1b-8c2d-3e4f5a6b7c8d", spec_version: "2.1", created: "2024-03-01T13:33:20.000Z",
      modified: "2024-03-01T13:33:20.000Z", created_by_ref: "identity--5a3c2b1d-0e0f-4a1b-8c2d-3e4f5a6b7c8d",
      labels: ['misp:type="domain"', 'misp:category="Network activity"', "tlp:green", "kill-chain:delivery"],
      object_marking_refs: ["marking-definition--34098fce-860f-48ae-8e50-ebd3cc5e41da"], name: "evil.example.com",
      indicator_types: ["malicious-activity"], pattern: "[domain-name:value = 'evil.example.com']", pattern_type: "stix", pattern_version: "2.1",
      valid_from: "2024-03-01T13:33:20.000Z", description: "C2", kill_chain_phases: [{ kill_chain_name: "misp-category", phase_name: "Network activity" }],
    });
  });

  it("is observed data when it is not, and an indicator again when all are asked for", () => {
    const { primary, observables } = mapAttribute(attribute({ toIds: false, firstSeen: 1709000000, lastSeen: 1708000000 }));
    expect(primary).toMatchObject({ type: "observed-data", first_observed: "2024-02-27T02:13:20.000Z", last_observed: "2024-02-27T02:13:20.000Z", object_refs: [observables[0].id] });
    expect(mapAttribute(attribute({ toIds: false }), { indicators: "all" }).primary).toMatchObject({ type: "indicator", indicator_types: ["unknown"] });
  });

  it("is a note on its event's report when STIX has no object for it, or a hand-written pattern is broken", () => {
    expect(mapAttribute(attribute({ type: "text", value: "x", comment: "why" })).primary).toMatchObject({
      type: "note", content: "x\n\nwhy", abstract: "Network activity: text", object_refs: ["report--0b7a9c7e-6f1d-4c52-9a43-1f0e2d3c4b5a"],
    });
    expect(mapAttribute(attribute({ type: "stix2-pattern", value: "[broken" })).primary.type).toBe("note");
    expect(mapAttribute(attribute({ type: "stix2-pattern", value: "[file:name = 'x']" })).primary).toMatchObject({ type: "indicator", pattern: "[file:name = 'x']" });
  });
});
