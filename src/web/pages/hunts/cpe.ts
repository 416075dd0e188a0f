/**
 * The CPE 2.3 builder's logic (NISTIR 7695 formatted strings): part, vendor, product and version
 * composed into `cpe:2.3:part:vendor:product:version`, and back when a hunt is edited. Components
 * after the version (update, edition...) are kept as written.
 */
import { splitCpeComponents } from "../../../platform/cpe.ts";

export type CpePart = "a" | "o" | "h";

export interface CpeFields {
  part: CpePart | "";
  vendor: string;
  product: string;
  version: string;
  /** Components after the version, escaped as stored. */
  rest: string[];
}

export const CPE_PARTS: { value: CpePart; label: string }[] = [
  { value: "a", label: "Application (a)" },
  { value: "o", label: "Operating system (o)" },
  { value: "h", label: "Hardware (h)" },
];

export const EMPTY_CPE: CpeFields = { part: "", vendor: "", product: "", version: "", rest: [] };

/**
 * One component as typed → its formatted form: lower case, spaces as underscores, punctuation
 * escaped with a backslash; a leading or trailing `*` or `?` stays a wildcard, a lone `*` means any.
 */
export function escapeCpeComponent(typed: string): string {
  const value = typed.trim().toLowerCase().replace(/\s+/g, "_");
  if (value === "" || value === "*" || value === "-") return value;
  const lead = /^(\*|\?+)/.exec(value)?.[0] ?? "";
  const body = value.slice(lead.length);
  const trail = /(\*|\?+)$/.exec(body)?.[0] ?? "";
  const middle = body.slice(0, body.length - trail.length);
  return lead + middle.replace(/[^a-z0-9._-]/g, (c) => `\\${c}`) + trail;
}

/** The formatted component → what the user sees in its field. */
export function unescapeCpeComponent(stored: string): string {
  return stored.replace(/\\(.)/g, "$1");
}

/** The cpe:2.3 string of the fields: trailing empty components left out, empty ones between as `*`. */
export function composeCpe(f: CpeFields): string {
  const parts = [f.part || "*", ...[f.vendor, f.product, f.version].map(escapeCpeComponent), ...f.rest];
  while (parts.length > 2 && (parts[parts.length - 1] === "" || parts[parts.length - 1] === "*")) parts.pop();
  return `cpe:2.3:${parts.map((p) => p || "*").join(":")}`;
}

/** The fields of a stored cpe:2.3 string; null when it is not one (the builder then starts empty). */
export function parseCpe(cpe: string): CpeFields | null {
  if (!cpe.startsWith("cpe:2.3:")) return null;
  const parts = splitCpeComponents(cpe.slice("cpe:2.3:".length));
  const [part = "", vendor = "", product = "", version = "", ...rest] = parts;
  if (!/^[aho*-]?$/.test(part)) return null;
  const any = (c: string) => (c === "*" ? "" : unescapeCpeComponent(c));
  return { part: part === "a" || part === "o" || part === "h" ? part : "", vendor: any(vendor), product: any(product), version: any(version), rest };
}

/** What is missing before the fields make a CPE the hunt can ask for; null when complete. */
export function cpeProblem(f: CpeFields): string | null {
  if (!f.part) return "Choose the part: application, operating system or hardware.";
  if (!f.vendor.trim()) return "Give the vendor (for example paloaltonetworks).";
  return null;
}
