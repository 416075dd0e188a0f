/**
 * Reading events with what they hold (issue 22): latency and SQL statements per request of
 *   - REST `GET /events/{uuid}` of an event with 100 attributes,
 *   - GraphQL: a page of 50 events with their tags and 50 attributes each (with their tags). When the
 *     schema has `Event.attributes` this is one request; before it, a client needed the page and
 *     then one `attributes(eventUuid)` request per event (reported as the sum of the 51 requests).
 *
 *   npx tsx bench/event-reads.ts [--rest-requests 300] [--graphql-requests 40]
 *
 * The service runs in this process (startTestApp, ROLE=api: no worker), on a fresh database cloned
 * from the test template, with 50 events x 100 attributes imported through POST /events/import.
 * Statements are counted at node-postgres's Client.query (raw SQL and Prisma both), per request.
 * Prints one JSON document on stdout: median and p95 milliseconds, statements per request.
 */
import { parseArgs } from "node:util";
import setupTemplate from "../test/support/global-setup.ts";
import { startTestApp } from "../test/support/app.ts";
import { countStatements } from "../test/support/statement-counter.ts";
import { median, round } from "./lib.ts";

const { values: args } = parseArgs({
  options: { "rest-requests": { type: "string", default: "300" }, "graphql-requests": { type: "string", default: "40" } },
});
const EVENTS = 50;
const ATTRIBUTES = 100;
/**
 * Attributes per event in the GraphQL page: 50 x 50 with their tags is within the operation cost
 * budget (src/graphql/cost-limits.ts counts 10 tags per attribute); 50 x 100 is over it.
 */
const PER_EVENT = 50;

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const summary = (ms: number[], statements: number[]) => ({ median_ms: round(median(ms), 2), p95_ms: round(p95(ms), 2), statements: median(statements), requests: ms.length });

function mispEvent(i: number) {
  return {
    Event: {
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      info: `bench event ${i}`,
      date: "2026-01-01",
      threat_level_id: "2",
      analysis: "1",
      distribution: "1",
      Tag: [{ name: "tlp:green" }, { name: `bench:event-${i % 5}` }],
      Attribute: Array.from({ length: ATTRIBUTES }, (_, j) => ({
        uuid: `00000000-0000-4000-9000-${String(i * 1000 + j).padStart(12, "0")}`,
        type: "ip-dst",
        category: "Network activity",
        value: `10.${i}.${Math.floor(j / 250)}.${j % 250}`,
        to_ids: j % 2 === 0,
        Tag: [{ name: `bench:attribute-${j % 3}` }],
      })),
    },
  };
}

async function main() {
  await setupTemplate();
  const app = await startTestApp("bench_event_reads");
  try {
    const { access_token: token } = await app.http.login("admin@example.test", "admin-password-1");
    for (let i = 0; i < EVENTS; i++) {
      const res = await app.http.post("/events/import", { token, json: mispEvent(i) });
      if (res.status !== 201) throw new Error(`import ${i}: ${res.status} ${res.text}`);
    }
    const uuid = mispEvent(7).Event.uuid;
    const timed = async (fn: () => Promise<void>) => {
      const counter = countStatements();
      const t0 = performance.now();
      try {
        await fn();
      } finally {
        counter.stop();
      }
      return { ms: performance.now() - t0, statements: counter.count };
    };
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await app.http.graphql(query, variables, token);
      if (res.status !== 200 || res.body.errors) throw new Error(`graphql: ${res.status} ${res.text.slice(0, 500)}`);
      return res.body.data;
    };

    const rest = { ms: [] as number[], statements: [] as number[] };
    for (let i = 0; i < Number(args["rest-requests"]) + 20; i++) {
      const r = await timed(async () => {
        const res = await app.http.get(`/events/${uuid}`, { token });
        if (res.status !== 200 || res.body.attribute_count !== ATTRIBUTES) throw new Error(`GET /events: ${res.status}`);
      });
      if (i < 20) continue; // warm-up
      rest.ms.push(r.ms);
      rest.statements.push(r.statements);
    }

    const eventFields = (await graphql(`{ __type(name: "Event") { fields { name } } }`)).__type.fields.map((f: { name: string }) => f.name);
    const oneRequest = eventFields.includes("attributes");
    const page = { ms: [] as number[], statements: [] as number[] };
    for (let i = 0; i < Number(args["graphql-requests"]) + 5; i++) {
      const r = await timed(async () => {
        if (oneRequest) {
          const data = await graphql(`{ events(page: 1, size: 50) { items { uuid info tags { name } attributes(limit: ${PER_EVENT}) { uuid type value toIds tags { name } } } } }`);
          const attributes = data.events.items.reduce((n: number, e: { attributes: unknown[] }) => n + e.attributes.length, 0);
          if (attributes !== EVENTS * PER_EVENT) throw new Error(`attributes: ${attributes}`);
        } else {
          const data = await graphql(`{ events(page: 1, size: 50) { items { uuid info tags { name } } } }`);
          let attributes = 0;
          for (const e of data.events.items as { uuid: string }[]) {
            const a = await graphql(`query($u: String!) { attributes(eventUuid: $u, page: 1, size: ${PER_EVENT}) { items { uuid type value toIds tags { name } } } }`, { u: e.uuid });
            attributes += a.attributes.items.length;
          }
          if (attributes !== EVENTS * PER_EVENT) throw new Error(`attributes: ${attributes}`);
        }
      });
      if (i < 5) continue; // warm-up
      page.ms.push(r.ms);
      page.statements.push(r.statements);
    }
    const result = {
      rest_get_event: summary(rest.ms, rest.statements),
      graphql_events_with_attributes: { ...summary(page.ms, page.statements), http_requests: oneRequest ? 1 : EVENTS + 1 },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await app.close();
  }
}

await main();
