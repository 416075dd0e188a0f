/**
 * Synthetic search documents for `bench/search.ts`, generated from the real value distributions of
 * `../shared/data` (read in place through `test/support/search-fixtures.ts`, never copied).
 *
 * - The real corpus (28 events, ~9 800 attributes) is the model. Each synthetic event copies one real
 *   event (its info, tags, organisations, distribution, flags), chosen with a probability
 *   proportional to the real event's attribute count, so the attribute mix over all generated events
 *   (types, categories, comments, tags, objects, access fields) follows the real one (~87% domains
 *   from the Infoblox feed, then IPs, URLs, hashes...) while types stay correlated with their
 *   events' organisations and distributions as in the real data.
 * - Each event gets exactly `attributesPerEvent` attributes drawn with replacement from its model's
 *   attributes. 10% keep their real value (the same indicator recurring across events, as in real
 *   feeds); the others are mutated with the same shape: new hex of the same length and case for
 *   hashes (also inside `filename|hash`, links and other values), new last octet (sometimes also the
 *   third) for IPv4 addresses, a varied label or an extra subdomain for domains and hostnames (TLD
 *   kept), varied URL hosts or paths, e-mail local parts, file names. Categorical values (ports,
 *   sizes, comments, categories, types, tags) are kept as they are.
 * - Timestamps: each event is its model moved back by 0-365 days (whole seconds); its attributes keep
 *   their real offset to the event timestamp. `expanded.ip` / `expanded.ip_range` follow the
 *   (mutated) `ip-src` / `ip-dst` value as in the fixtures.
 * - Deterministic: one seeded PRNG (sfc32), so the same arguments give the same documents.
 */
import { buildSearchDocuments, type Doc } from "../test/support/search-fixtures.ts";

/** sfc32: small, fast, good enough for test data. Returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

const HEX = "0123456789abcdef";
const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const SUBDOMAINS = ["www", "cdn", "mail", "login", "secure", "api", "update", "portal", "m", "static", "auth", "files", "app", "support", "account"];
const KEEP_REAL_VALUE = 0.1;
const DAY = 86_400;

type Rng = () => number;

const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)]!;
const chars = (rng: Rng, alphabet: string, n: number) => {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[int(rng, alphabet.length)];
  return s;
};

function uuid(rng: Rng): string {
  const h = chars(rng, HEX, 32).split("");
  h[12] = "4";
  h[16] = HEX[8 + int(rng, 4)]!;
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** Every run of 16+ hex digits replaced by random hex of the same length and case. */
function newHexRuns(rng: Rng, value: string): string {
  return value.replace(/[0-9a-fA-F]{16,}/g, (run) => {
    const s = chars(rng, HEX, run.length);
    return run === run.toUpperCase() && /[A-F]/.test(run) ? s.toUpperCase() : s;
  });
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function newIpv4(rng: Rng, ip: string): string {
  const m = IPV4.exec(ip);
  if (!m) return ip.includes(":") && !ip.includes("/") ? ip.replace(/[0-9a-f]{1,4}$/i, () => chars(rng, HEX, 1 + int(rng, 4))) : ip;
  const third = rng() < 0.3 ? int(rng, 256) : Number(m[3]);
  return `${m[1]}.${m[2]}.${third}.${1 + int(rng, 254)}`;
}

/** A varied second-level label (`name` -> `name` + 1-3 chars, or a changed character) or an extra subdomain. */
function newDomain(rng: Rng, domain: string): string {
  const labels = domain.split(".");
  if (labels.length < 2 || labels.some((l) => l.length === 0)) return `${domain}${int(rng, 100)}`;
  if (rng() < 0.4) return `${pick(rng, SUBDOMAINS)}${rng() < 0.5 ? int(rng, 100) : ""}.${domain}`;
  const i = labels.length - 2;
  const label = labels[i]!;
  if (rng() < 0.5 || label.length < 4) {
    labels[i] = `${label}${chars(rng, ALNUM, 1 + int(rng, 3))}`;
  } else {
    const at = int(rng, label.length);
    labels[i] = `${label.slice(0, at)}${chars(rng, ALNUM, 1)}${label.slice(at + 1)}`;
  }
  return labels.join(".");
}

function newUrl(rng: Rng, url: string): string {
  if (/[0-9a-fA-F]{16,}/.test(url)) return newHexRuns(rng, url);
  const m = /^([a-z]+:\/\/)?([^/?#]+)(.*)$/i.exec(url);
  if (!m) return url;
  const [, scheme = "", host = "", rest = ""] = m;
  if (rng() < 0.5 || rest === "" || rest === "/") return `${scheme}${newDomain(rng, host)}${rest}`;
  // Vary the digits of the path, or add a query parameter when it has none.
  return /\d/.test(rest) ? `${scheme}${host}${rest.replace(/\d/g, () => String(int(rng, 10)))}` : `${scheme}${host}${rest}${rest.includes("?") ? "&" : "?"}id=${int(rng, 100_000)}`;
}

function newFilename(rng: Rng, name: string): string {
  if (rng() < 0.5) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}_${chars(rng, ALNUM, 4)}${name.slice(dot)}` : `${name}_${chars(rng, ALNUM, 4)}`;
}

/** The same kind of value, different from the real one (see the module comment). */
export function mutateValue(rng: Rng, type: string, value: string): string {
  switch (type) {
    case "ip-src":
    case "ip-dst":
      return newIpv4(rng, value);
    case "ip-src|port":
    case "ip-dst|port": {
      const [ip, port] = value.split("|");
      return port === undefined ? newIpv4(rng, value) : `${newIpv4(rng, ip!)}|${port}`;
    }
    case "domain":
    case "hostname":
      return newDomain(rng, value);
    case "url":
    case "link":
      return newUrl(rng, value);
    case "email-src":
    case "email-dst": {
      const at = value.lastIndexOf("@");
      if (at <= 0) return value;
      const local = value.slice(0, at);
      const domain = value.slice(at + 1);
      return rng() < 0.5 ? `${local.replace(/\d+$/, "")}${int(rng, 10_000)}@${domain}` : `${local}@${newDomain(rng, domain)}`;
    }
    case "filename":
      return newFilename(rng, value);
    default:
      if (type.startsWith("filename|") || type === "malware-sample") {
        const bar = value.indexOf("|");
        return bar > 0 ? `${newFilename(rng, value.slice(0, bar))}|${newHexRuns(rng, value.slice(bar + 1))}` : newHexRuns(rng, value);
      }
      // Hashes (md5, sha*, imphash, pehash...) and anything else carrying hex runs; the rest is categorical.
      return newHexRuns(rng, value);
  }
}

interface Model {
  event: Doc;
  attributes: Doc[];
  ts: number;
}

/** The real corpus grouped by event, and the cumulative weights (attribute counts) to draw models. */
function loadModels(): { models: Model[]; cumulative: number[] } {
  const { events, attributes } = buildSearchDocuments();
  const byEvent = new Map<string, Doc[]>();
  for (const a of attributes) {
    const key = a.source.event_uuid as string;
    if (!byEvent.has(key)) byEvent.set(key, []);
    byEvent.get(key)!.push(a);
  }
  const models = events
    .map((e) => ({ event: e, attributes: byEvent.get(e.id) ?? [], ts: Number(e.source.timestamp) }))
    .filter((m) => m.attributes.length > 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const m of models) cumulative.push((sum += m.attributes.length));
  return { models, cumulative };
}

const naiveIso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 19);
const shiftEpoch = (v: unknown, delta: number) => (typeof v === "number" && v > 0 ? v + delta : v);

export interface GeneratedEvent {
  event: Doc;
  attributes: Doc[];
}

export interface GenerateOptions {
  events: number;
  attributesPerEvent: number;
  seed?: number;
}

/** Generates the events one at a time (nothing is kept between two events). */
export function* generateEvents({ events, attributesPerEvent, seed = 20261123 }: GenerateOptions): Generator<GeneratedEvent> {
  const { models, cumulative } = loadModels();
  const total = cumulative[cumulative.length - 1]!;
  const rng = prng(seed);
  for (let n = 0; n < events; n++) {
    const r = rng() * total;
    let lo = 0;
    while (cumulative[lo]! <= r) lo++;
    const model = models[lo]!;
    const delta = -int(rng, 365 * DAY);
    const ts = model.ts + delta;
    const eventUuid = uuid(rng);
    const date = naiveIso(ts).slice(0, 10);
    const src = model.event.source;
    const objects = new Map<string, string>();
    const attributes: Doc[] = [];
    for (let i = 0; i < attributesPerEvent; i++) {
      const a = model.attributes[int(rng, model.attributes.length)]!.source;
      const type = a.type as string;
      const value = rng() < KEEP_REAL_VALUE ? (a.value as string) : mutateValue(rng, type, a.value as string);
      const ip = (type === "ip-src" || type === "ip-dst") && !value.includes("/") ? value : null;
      const ats = Number(a.timestamp) - model.ts + ts;
      let objectUuid: string | null = null;
      if (typeof a.object_uuid === "string") {
        if (!objects.has(a.object_uuid)) objects.set(a.object_uuid, uuid(rng));
        objectUuid = objects.get(a.object_uuid)!;
      }
      const id = uuid(rng);
      attributes.push({
        id,
        source: {
          ...a,
          uuid: id,
          event_uuid: eventUuid,
          object_uuid: objectUuid,
          value,
          timestamp: ats,
          first_seen: shiftEpoch(a.first_seen, delta),
          last_seen: shiftEpoch(a.last_seen, delta),
          expanded: ip ? { ip, ip_range: `${ip.split(".").slice(0, 3).join(".")}.0/24` } : {},
          "@timestamp": new Date(ats * 1000).toISOString(),
        },
      });
    }
    const info = (src.info as string).replace(/20\d{6}/, date.replaceAll("-", ""));
    const event: Doc = {
      id: eventUuid,
      source: {
        ...src,
        uuid: eventUuid,
        info,
        date,
        attribute_count: attributesPerEvent,
        object_count: objects.size,
        timestamp: ts,
        publish_timestamp: shiftEpoch(src.publish_timestamp, delta),
        deleted: n % 1000 === 2,
        "@timestamp": naiveIso(ts),
      },
    };
    yield { event, attributes };
  }
}
