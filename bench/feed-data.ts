/** The synthetic MISP feed of bench/feeds.ts and bench/feed-stages.ts. */
import crypto from "node:crypto";

type Json = Record<string, unknown>;
export type MispDoc = { Event: Json & { uuid: string; timestamp: string; info: string } };

/**
 * A synthetic MISP feed: `events` events of `perEvent` distinct real-looking values each (ip-dst,
 * domain, url, md5, sha256, filename, hostname), one in twenty shared with another event (a pool of
 * events × perEvent / 40 values, each in two events) so that correlation has pairs to find.
 */
export function syntheticFeed(events: number, perEvent: number): MispDoc[] {
  const salt = crypto.randomBytes(4).toString("hex");
  const hex = (len: number, i: number) => crypto.createHash("sha512").update(`${salt}${i}`).digest("hex").slice(0, len);
  const shared = (k: number) => [`shared-${k}.example-${salt}.com`, `198.${51 + (k >> 16)}.${(k >> 8) % 256}.${k % 256}`][k % 2];
  const pool = Math.max(1, Math.floor((events * perEvent) / 40));
  const ts = String(Math.floor(Date.now() / 1000) - 3600);
  const types: [string, string, (i: number) => string][] = [
    ["ip-dst", "Network activity", (i) => `${11 + (i % 200)}.${(i >> 8) & 255}.${(i >> 16) & 255}.${(i * 7) % 250}`],
    ["domain", "Network activity", (i) => `c2-${i}.example-${salt}.net`],
    ["url", "Network activity", (i) => `https://login-${i}.example-${salt}.org/${hex(10, i)}/index.php`],
    ["md5", "Payload delivery", (i) => hex(32, i)],
    ["sha256", "Payload delivery", (i) => hex(64, i + 1e8)],
    ["filename", "Payload delivery", (i) => `invoice_${hex(6, i + 2e8)}.exe`],
    ["hostname", "Network activity", (i) => `srv-${i}.cdn-${salt}.io`],
  ];
  return Array.from({ length: events }, (_, e) => ({
    Event: {
      uuid: crypto.randomUUID(),
      info: `bench feed event ${e}`,
      date: "2026-11-01",
      timestamp: ts,
      threat_level_id: "2",
      analysis: "2",
      distribution: "3",
      Tag: [{ name: "tlp:white" }],
      Attribute: Array.from({ length: perEvent }, (_, j) => {
        const i = e * perEvent + j;
        const [type, category, value] = types[i % types.length];
        const sharedValue = j % 20 === 0 ? shared(Math.floor(i / 20) % pool) : null;
        return { uuid: crypto.randomUUID(), type: sharedValue ? (sharedValue.includes("shared-") ? "domain" : "ip-dst") : type, category, value: sharedValue ?? value(i), to_ids: true, timestamp: ts, comment: "" };
      }),
    },
  }));
}
