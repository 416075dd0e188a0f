import { describe, expect, it } from "vitest";
import { parseMachineTag } from "../../src/modules/tags/index.ts";

describe("machine tags as MISP reads them", () => {
  it.each([
    ["tlp:amber", { namespace: "tlp", predicate: "amber", value: null }],
    ['admiralty-scale:source-reliability="a"', { namespace: "admiralty-scale", predicate: "source-reliability", value: "a" }],
    ['misp-galaxy:mitre-attack-pattern="Phishing - T1566"', { namespace: "misp-galaxy", predicate: "mitre-attack-pattern", value: "Phishing - T1566" }],
    ['estimative-language:likelihood-probability="almost-certain"', { namespace: "estimative-language", predicate: "likelihood-probability", value: "almost-certain" }],
    // Only the first colon splits; a value may hold colons, = and quotes.
    ['misp:tool="a:b=c"', { namespace: "misp", predicate: "tool", value: "a:b=c" }],
    ['ns:pred=""', { namespace: "ns", predicate: "pred", value: "" }],
    ["PAP:GREEN", { namespace: "PAP", predicate: "GREEN", value: null }],
  ])("%s", (name, parts) => {
    expect(parseMachineTag(name)).toEqual(parts);
  });

  it.each(["malware", "APT 28", ":amber", "tlp:", 'tlp:="x"', 'ns:pred="unterminated', 'a"b:c'])("%s is a plain tag", (name) => {
    expect(parseMachineTag(name)).toBeNull();
  });
});
