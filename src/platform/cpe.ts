/**
 * CPE 2.3 formatted strings (NISTIR 7695, section 6.2): `cpe:2.3:` then part (a, o, h) and up to ten
 * more components separated by unescaped colons: vendor, product, version, update, edition,
 * language, sw_edition, target_sw, target_hw, other. A prefix (at least part and vendor) is a valid
 * search, as the vulnerability database takes it (`cpe:2.3:o:paloaltonetworks:pan-os`).
 */
const NAMES = ["part", "vendor", "product", "version", "update", "edition", "language", "sw_edition", "target_sw", "target_hw", "other"];
const MAX_LENGTH = 1024;
/** `*` (any) or `-` (not applicable), or a value: letters, digits, `._-`, backslash-escaped punctuation, wildcards only at the ends. */
const COMPONENT = /^(?:[*-]|(?:\?+|\*)?(?:[A-Za-z0-9._-]|\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~])+(?:\?+|\*)?)$/;
const LANGUAGE = /^(?:[*-]|[A-Za-z]{2,3}(?:-(?:[A-Za-z]{2}|\d{3}))?)$/;

/** Why `cpe` is not a CPE 2.3 formatted string, or null when it is one. */
export function validateCpe(cpe: string): string | null {
  if (cpe.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  if (/^cpe:\/[aho]?:/i.test(cpe)) return "this is a CPE 2.2 URI; write it as cpe:2.3:part:vendor:product…";
  if (!cpe.startsWith("cpe:2.3:")) return "it must start with cpe:2.3:";
  const parts = splitCpeComponents(cpe.slice("cpe:2.3:".length));
  if (parts.length < 2) return "give at least the part and the vendor";
  if (parts.length > NAMES.length) return `at most ${NAMES.length} components after cpe:2.3`;
  if (!/^[aho*-]$/.test(parts[0])) return "the part must be a (application), o (operating system), h (hardware), * or -";
  for (let i = 1; i < parts.length; i++) {
    const ok = i === 6 ? LANGUAGE.test(parts[i]) : COMPONENT.test(parts[i]);
    if (!ok) return `the ${NAMES[i]} component ${JSON.stringify(parts[i].slice(0, 60))} is not valid`;
  }
  return null;
}

/** Splits on colons that are not escaped with a backslash (escapes kept). Shared with the web UI's CPE builder. */
export function splitCpeComponents(s: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && i + 1 < s.length) {
      current += s[i] + s[i + 1];
      i++;
    } else if (s[i] === ":") {
      out.push(current);
      current = "";
    } else {
      current += s[i];
    }
  }
  out.push(current);
  return out;
}
