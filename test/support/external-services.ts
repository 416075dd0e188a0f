import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sharedPath } from "./shared-data.ts";

/**
 * Real HTTP servers on loopback standing in for the vulnerability database (Vulnerability-Lookup's
 * `/api/vulnerability/cpesearch/<cpe>`, pages of `per_page`) and the rules service (Rulezet's
 * `/api/rule/public/search_rules_by_cve`). Tests set what they answer and make them fail on
 * demand: an HTTP status, silence, malformed JSON, or an endless body.
 */
export type Failure = "status" | "silence" | "malformed" | "endless";

export interface StandIn {
  url: string;
  /** Every request, as path + query. */
  requests: string[];
  /** CVE records the cpe search pages through (vulnerability database). */
  records: unknown[];
  /** Rules answered per lower-cased id (rules service), in the reply shape `{results: [...]}` unless `rawReply` is set. */
  rules: Map<string, unknown[]>;
  rawReply: unknown;
  /** Every answer waits this long (a slow service). */
  delayMs: number;
  /** Fail the next `times` requests (Infinity: until cleared), optionally only for page N. */
  fail(how: Failure, opts?: { times?: number; status?: number; page?: number }): void;
  clear(): void;
  close(): Promise<void>;
}

/** The real records of ../shared/data/vulnerability-lookup (CVE JSON 5.x). */
export function realCveRecords(): { pan: Record<string, any>; xz: Record<string, any>; log4shell: Record<string, any> } {
  const read = (f: string) => JSON.parse(fs.readFileSync(sharedPath("vulnerability-lookup", f), "utf8"));
  return {
    pan: read("cpesearch_cpe-2.3-o-paloaltonetworks-pan-os.json").cvelistv5[0],
    xz: read("vulnerability_CVE-2024-3094.json"),
    log4shell: read("vulnerability_CVE-2021-44228.references-trimmed.json"),
  };
}

/** A real record under another CVE id (for many pages of realistic records). */
export function withCveId(record: Record<string, any>, id: string): Record<string, any> {
  const copy = structuredClone(record);
  copy.cveMetadata = { ...copy.cveMetadata, cveId: id };
  return copy;
}

export async function startStandIn(): Promise<StandIn> {
  const sockets = new Set<import("node:net").Socket>();
  let failure: { how: Failure; times: number; status: number; page?: number } | null = null;
  const state: StandIn = {
    url: "",
    requests: [],
    records: [],
    rules: new Map(),
    rawReply: undefined,
    delayMs: 0,
    fail(how, opts = {}) {
      failure = { how, times: opts.times ?? Infinity, status: opts.status ?? 500, page: opts.page };
    },
    clear() {
      failure = null;
      state.rawReply = undefined;
      state.delayMs = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const server = http.createServer((req, res) => {
    if (state.delayMs > 0) setTimeout(() => answer(req, res), state.delayMs);
    else answer(req, res);
  });
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    state.requests.push(`${url.pathname}${url.search}`);
    const page = Number(url.searchParams.get("page") ?? "1");
    if (failure && failure.times > 0 && (failure.page === undefined || failure.page === page)) {
      failure.times--;
      switch (failure.how) {
        case "status":
          res.writeHead(failure.status, { "content-type": "application/json" }).end('{"message": "stand-in failure"}');
          return;
        case "silence":
          return; // never answers; the socket is destroyed at close
        case "malformed":
          res.writeHead(200, { "content-type": "application/json" }).end('{"cvelistv5": [{"cveMetadata": ');
          return;
        case "endless": {
          // About 2 GB if nobody stops reading: the client must give up at its cap.
          res.writeHead(200, { "content-type": "application/json" });
          const chunk = Buffer.alloc(1 << 20, 0x20);
          let sent = 0;
          const pump = () => {
            while (sent < 2048 && res.write(chunk)) sent++;
            if (sent >= 2048) res.end();
            else res.once("drain", pump);
          };
          res.write('{"cvelistv5": [');
          pump();
          return;
        }
      }
    }
    if (url.pathname.startsWith("/api/vulnerability/cpesearch/")) {
      const perPage = Number(url.searchParams.get("per_page") ?? "100");
      const body = state.rawReply ?? { cvelistv5: state.records.slice((page - 1) * perPage, page * perPage) };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    if (url.pathname === "/api/rule/public/search_rules_by_cve") {
      const id = url.searchParams.get("cve_ids") ?? "";
      const body = state.rawReply ?? { results: state.rules.get(id) ?? [] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"message": "not found"}');
  };
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A rule as the rules service returns it (the fields the peer's UI reads, and a few more). */
export function ruleFor(id: string, n: number): Record<string, unknown> {
  return {
    id: 1000 + n,
    uuid: `6b3a${String(n).padStart(4, "0")}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`,
    title: `Detect exploitation of ${id.toUpperCase()} (${n})`,
    format: n % 2 ? "sigma" : "yara",
    author: "stand-in",
    creation_date: "2024-04-15 10:00:00",
    source: "https://github.com/example/rules",
    cve_id: `["${id.toUpperCase()}"]`,
    detail_url: `https://rulezet.org/rule/detail_rule/${1000 + n}`,
  };
}
