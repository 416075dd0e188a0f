import net from "node:net";
import { compileWarninglistRegex, REGEX_MAX_INPUT } from "./safe-regex.ts";

export const WARNINGLIST_TYPES = ["string", "substring", "hostname", "cidr", "regex"] as const;
export type WarninglistType = (typeof WARNINGLIST_TYPES)[number];

/** A hit stored on an attribute and shown with it. */
export interface Warning {
  id: number;
  name: string;
}

export interface ListMeta {
  id: number;
  name: string;
  type: WarninglistType;
  /** Attribute types it applies to; empty (or MISP's "ALL"): every type. */
  matchingAttributes: string[];
}

const NO_HITS: readonly Warning[] = Object.freeze([]);

// ---- normalisation shared by the import (what is refused) and the matchers ----

/** A listed host: lower case, without the leading `.`/`*.` (MISP lists write `.example.com` for it and its subdomains). */
export const normaliseHostname = (entry: string) => entry.trim().toLowerCase().replace(/^\*?\.+/, "").replace(/\.+$/, "");

/**
 * The host of a value, as MISP reads one for hostname lists: a URL's authority (after `//`), else
 * what comes before the first `/`; without user info (an email address gives its domain), port
 * or trailing dots; lower case.
 */
export function hostOf(value: string): string {
  const slashes = value.indexOf("//");
  let host = slashes >= 0 ? value.slice(slashes + 2) : value;
  const end = host.search(/[/?#]/);
  if (end >= 0) host = host.slice(0, end);
  const at = host.lastIndexOf("@");
  if (at >= 0) host = host.slice(at + 1);
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]") >>> 0).toLowerCase();
  host = host.replace(/:\d*$/, "");
  return host.replace(/\.+$/, "").toLowerCase();
}

interface ParsedNet {
  v6: boolean;
  /** IPv4 as an unsigned 32-bit number, IPv6 as a bigint. */
  bits: number | bigint;
  prefix: number;
}

/** `a.b.c.d`, an IPv6 address, or either with `/prefix`; null for anything else. */
export function parseNet(value: string): ParsedNet | null {
  const slash = value.indexOf("/");
  const ip = (slash >= 0 ? value.slice(0, slash) : value).trim();
  const family = net.isIP(ip);
  if (family === 0) return null;
  const width = family === 4 ? 32 : 128;
  let prefix = width;
  if (slash >= 0) {
    const p = value.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(p) || Number(p) > width) return null;
    prefix = Number(p);
  }
  return family === 4 ? { v6: false, bits: ipv4Bits(ip), prefix } : { v6: true, bits: ipv6Bits(ip), prefix };
}

const ipv4Bits = (ip: string) => ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);

function ipv6Bits(ip: string): bigint {
  let text = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4Bits(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}

// ---- the engines: one per list type, holding every enabled list of that type ----

/** Each key's list indices (most keys belong to one list: a number, else an array). */
class KeyedLists<K> {
  private readonly map = new Map<K, number | number[]>();
  add(key: K, list: number): void {
    const had = this.map.get(key);
    if (had === undefined) this.map.set(key, list);
    else if (typeof had === "number") {
      if (had !== list) this.map.set(key, [had, list]);
    } else if (!had.includes(list)) had.push(list);
  }
  get(key: K): number | number[] | undefined {
    return this.map.get(key);
  }}

/** Aho-Corasick automaton over UTF-16 code units: every listed substring in one pass over the value. */
class AhoCorasick {
  private readonly next: Map<number, number>[] = [new Map()];
  private fail: Int32Array = new Int32Array(0);
  private readonly out: (number[] | null)[] = [null];

  add(pattern: string, list: number): void {
    let s = 0;
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern.charCodeAt(i);
      let t = this.next[s].get(c);
      if (t === undefined) {
        t = this.next.length;
        this.next.push(new Map());
        this.out.push(null);
        this.next[s].set(c, t);
      }
      s = t;
    }
    const o = (this.out[s] ??= []);
    if (!o.includes(list)) o.push(list);
  }

  build(): void {
    this.fail = new Int32Array(this.next.length);
    const queue: number[] = [...this.next[0].values()];
    for (let q = 0; q < queue.length; q++) {
      const r = queue[q];
      for (const [c, u] of this.next[r]) {
        queue.push(u);
        let f = this.fail[r];
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f];
        const g = this.next[f].get(c);
        this.fail[u] = g !== undefined && g !== u ? g : 0;
        const inherited = this.out[this.fail[u]];
        if (inherited) this.out[u] = [...new Set([...(this.out[u] ?? []), ...inherited])];
      }
    }
  }

  search(text: string, hit: (list: number) => void): void {
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t = this.next[s].get(c);
      while (t === undefined && s !== 0) {
        s = this.fail[s];
        t = this.next[s].get(c);
      }
      s = t ?? 0;
      const o = this.out[s];
      if (o) for (const l of o) hit(l);
    }
  }
}

/**
 * Networks by prefix length: one hash of masked networks per length present, so an address is
 * looked up once per listed length (at most 33 for IPv4, 129 for IPv6), whatever the entry count.
 */
class PrefixTable {
  private readonly v4 = new Map<number, KeyedLists<number>>();
  private readonly v6 = new Map<number, KeyedLists<bigint>>();
  private v4Lengths: number[] = [];
  private v6Lengths: number[] = [];

  add(n: ParsedNet, list: number): void {
    if (n.v6) {
      let t = this.v6.get(n.prefix);
      if (!t) this.v6.set(n.prefix, (t = new KeyedLists()));
      t.add(mask6(n.bits as bigint, n.prefix), list);
    } else {
      let t = this.v4.get(n.prefix);
      if (!t) this.v4.set(n.prefix, (t = new KeyedLists()));
      t.add(mask4(n.bits as number, n.prefix), list);
    }
  }

  build(): void {
    this.v4Lengths = [...this.v4.keys()].sort((a, b) => a - b);
    this.v6Lengths = [...this.v6.keys()].sort((a, b) => a - b);
  }

  /** Lists holding a network that contains `n` (an address, or a network inside a listed one). */
  lookup(n: ParsedNet, hit: (l: number | number[]) => void): void {
    if (n.v6) {
      for (const len of this.v6Lengths) {
        if (len > n.prefix) break;
        const l = this.v6.get(len)!.get(mask6(n.bits as bigint, len));
        if (l !== undefined) hit(l);
      }
    } else {
      for (const len of this.v4Lengths) {
        if (len > n.prefix) break;
        const l = this.v4.get(len)!.get(mask4(n.bits as number, len));
        if (l !== undefined) hit(l);
      }
    }
  }
}

const mask4 = (bits: number, len: number) => (len === 0 ? 0 : Math.floor(bits / 2 ** (32 - len)));
const mask6 = (bits: bigint, len: number) => bits >> BigInt(128 - len);

interface Applicable {
  /** Which lists apply to this attribute type (by index). */
  lists: Uint8Array;
  types: Set<WarninglistType>;
  regex: number[];
}

/**
 * Every enabled warninglist compiled for matching: exact strings in a hash, substrings in one
 * Aho-Corasick automaton, hostnames by label suffix in a hash (a listed domain matches itself and its
 * subdomains), networks in per-length prefix hashes (IPv4 and IPv6), regexes judged safe. Values
 * are compared in lower case, except by regexes (their own flags). Build with `WarninglistBuilder`.
 */
export class WarninglistMatcher {
  private readonly byType = new Map<string | null, Applicable>();

  constructor(
    private readonly lists: ListMeta[],
    private readonly strings: KeyedLists<string>,
    private readonly substrings: AhoCorasick,
    private readonly hosts: KeyedLists<string>,
    private readonly nets: PrefixTable,
    private readonly regexes: Map<number, RegExp[]>,
  ) {}

  get listCount(): number {
    return this.lists.length;
  }

  /**
   * The hits of an attribute value (its stored parts: value1, and value2 of composite types), by
   * list id. Without a type (a value checked on its own), every list applies, whatever its types.
   */
  match(type: string | null, value1: string, value2: string | null): readonly Warning[] {
    const app = this.applicable(type);
    if (app.types.size === 0) return NO_HITS;
    const found = new Set<number>();
    const add = (l: number | number[]) => {
      if (typeof l === "number") {
        if (app.lists[l]) found.add(l);
      } else for (const x of l) if (app.lists[x]) found.add(x);
    };
    for (const part of value2 === null ? [value1] : [value1, value2]) {
      if (part === "") continue;
      const lower = part.toLowerCase();
      if (app.types.has("string")) {
        const l = this.strings.get(lower.trim());
        if (l !== undefined) add(l);
      }
      if (app.types.has("substring")) this.substrings.search(lower, add);
      if (app.types.has("hostname")) this.lookupHost(hostOf(part), add);
      if (app.types.has("cidr")) {
        const n = parseNet(part);
        if (n) this.nets.lookup(n, add);
      }
      if (app.regex.length && part.length <= REGEX_MAX_INPUT) {
        for (const l of app.regex) if (!found.has(l) && this.regexes.get(l)!.some((r) => r.test(part))) found.add(l);
      }
    }
    if (found.size === 0) return NO_HITS;
    return [...found].sort((a, b) => this.lists[a].id - this.lists[b].id).map((l) => ({ id: this.lists[l].id, name: this.lists[l].name }));
  }

  private lookupHost(host: string, add: (l: number | number[]) => void): void {
    if (host === "") return;
    for (let at = 0; at >= 0; at = host.indexOf(".", at) + 1 || -1) {
      const l = this.hosts.get(at === 0 ? host : host.slice(at));
      if (l !== undefined) add(l);
    }
  }

  private applicable(type: string | null): Applicable {
    let a = this.byType.get(type);
    if (a) return a;
    a = { lists: new Uint8Array(this.lists.length), types: new Set(), regex: [] };
    this.lists.forEach((l, i) => {
      const all = type === null || l.matchingAttributes.length === 0 || l.matchingAttributes.includes("ALL");
      if (!all && !l.matchingAttributes.includes(type)) return;
      if (l.type === "regex" && !this.regexes.has(i)) return;
      a!.lists[i] = 1;
      a!.types.add(l.type);
      if (l.type === "regex") a!.regex.push(i);
    });
    // Types no list applies to stay few (the attribute catalogue): cache every answer.
    this.byType.set(type, a);
    return a;
  }
}

/** Why an entry of a list of this type cannot be used, or null. */
export function entryProblem(type: WarninglistType, entry: string): string | null {
  if (entry.trim() === "") return "empty";
  if (type === "cidr") return parseNet(entry.trim()) ? null : "not an IP address or network";
  if (type === "hostname") return normaliseHostname(entry) === "" ? "not a hostname" : null;
  if (type === "regex") {
    const v = compileWarninglistRegex(entry);
    return v.ok ? null : v.reason;
  }
  return null;
}

/** Collects lists and their entries (streamed in pages), then compiles the matcher once. */
export class WarninglistBuilder {
  private readonly lists: ListMeta[] = [];
  private readonly strings = new KeyedLists<string>();
  private readonly substrings = new AhoCorasick();
  private readonly hosts = new KeyedLists<string>();
  private readonly nets = new PrefixTable();
  private readonly regexes = new Map<number, RegExp[]>();

  /** Adds a list; returns the function that adds its entries. */
  addList(meta: ListMeta): (entries: Iterable<string>) => void {
    const i = this.lists.push(meta) - 1;
    return (entries) => {
      for (const e of entries) this.addEntry(meta.type, i, e);
    };
  }

  private addEntry(type: WarninglistType, i: number, entry: string): void {
    switch (type) {
      case "string": {
        const v = entry.trim().toLowerCase();
        if (v) this.strings.add(v, i);
        return;
      }
      case "substring":
        if (entry) this.substrings.add(entry.toLowerCase(), i);
        return;
      case "hostname": {
        const h = normaliseHostname(entry);
        if (h) this.hosts.add(h, i);
        return;
      }
      case "cidr": {
        const n = parseNet(entry.trim());
        if (n) this.nets.add(n, i);
        return;
      }
      case "regex": {
        const v = compileWarninglistRegex(entry);
        if (!v.ok) return;
        const list = this.regexes.get(i) ?? [];
        // Stateless tests: a global or sticky flag would carry lastIndex from one value to the next.
        list.push(v.regex);
        this.regexes.set(i, list);
      }
    }
  }

  build(): WarninglistMatcher {
    this.substrings.build();
    this.nets.build();
    return new WarninglistMatcher(this.lists, this.strings, this.substrings, this.hosts, this.nets, this.regexes);
  }
}

export const emptyMatcher = () => new WarninglistBuilder().build();
