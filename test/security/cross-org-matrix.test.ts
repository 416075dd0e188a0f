/**
 * The cross-organisation matrix (issue 20): two organisations, every role (site admin, org admin,
 * user, read-only, a narrow API key), every REST route of the route table, every GraphQL root
 * field, every registered task and every import path. B's callers aim each request at A's
 * resources: reads answer 404 or lists without A's private data, writes 403 or 404, and a digest of
 * everything A owns is the same afterwards. The site administrator (or A's own user, for routes
 * about the caller) then sends the same requests, which succeed: B's refusals are refusals, not
 * malformed requests. A route, field or task without its row fails the coverage tests.
 *
 * ROLE=all: indexing, correlations, notifications and task runs happen in the worker, as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredTasks } from "../../src/modules/tasks/task-registry.ts";
import { wakeTicker } from "../../src/modules/tasks/task-queue.ts";
import { insertScheduledTask } from "../../src/modules/tasks/task-store.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { eventually } from "../support/process.ts";
import { OPENSEARCH, SEARCH_BACKENDS } from "../support/search-backends.ts";
import { sharedPath, smallSources } from "../support/shared-data.ts";
import { settled } from "../support/settled.ts";
import { eventsGraphql, eventsRest } from "./cross-org/events.cases.ts";
import { exploreGraphql } from "./cross-org/explore.cases.ts";
import { exploreExportGraphql, exploreExportRest } from "./cross-org/explore-export.cases.ts";
import { exportsGraphql, exportsReadPaths, exportsRest } from "./cross-org/exports.cases.ts";
import { everyField, uncoveredFields, type GraphqlCase } from "./cross-org/graphql.ts";
import { identityGraphql, identityRest } from "./cross-org/identity.cases.ts";
import { feedIntoForeignEvent, importAttacks, importPaths } from "./cross-org/imports.ts";
import { bProblems, graphqlRow, restRow, validationOrder, validatorProblem, type Row } from "./cross-org/judge.ts";
import { operationsGraphql, operationsRest } from "./cross-org/operations.cases.ts";
import { mcpGraphql, mcpRest } from "./cross-org/mcp.cases.ts";
import { readPathsGraphql, readPathsRest } from "./cross-org/read-paths.cases.ts";
import { reportsGraphql, reportsReadPaths, reportsRest } from "./cross-org/reports.cases.ts";
import { sharingGroupsGraphql, sharingGroupsRest } from "./cross-org/sharing-groups.cases.ts";
import { taxonomiesGraphql, taxonomiesRest } from "./cross-org/taxonomies.cases.ts";
import { warninglistsGraphql, warninglistsRest } from "./cross-org/warninglists.cases.ts";
import { mispRest } from "./cross-org/misp.cases.ts";
import { mispMoreRest } from "./cross-org/misp-more.cases.ts";
import { mispRestSearchRest } from "./cross-org/misp-rest-search.cases.ts";
import { serversGraphql, serversRest } from "./cross-org/servers.cases.ts";
import { uncoveredRoutes, type RestCase } from "./cross-org/rest.ts";
import { changedTables, snapshotOrg, type Snapshot } from "./cross-org/snapshot.ts";
import { afterTrigger, subscribeAll, subscriptionCases } from "./cross-org/subscriptions.ts";
import { taskCases } from "./cross-org/tasks.cases.ts";
import { B_ACTORS, buildWorld, finished as finishedRun, leaks, type CrossOrgWorld } from "./cross-org/world.ts";

const restCases: RestCase[] = [...identityRest, ...eventsRest, ...operationsRest, ...exploreExportRest, ...exportsRest, ...reportsRest, ...mcpRest, ...sharingGroupsRest, ...taxonomiesRest, ...warninglistsRest, ...mispRest, ...mispMoreRest, ...mispRestSearchRest, ...serversRest];
const graphqlCases: GraphqlCase[] = [...identityGraphql, ...eventsGraphql, ...operationsGraphql, ...exploreExportGraphql, ...exploreGraphql, ...exportsGraphql, ...reportsGraphql, ...mcpGraphql, ...sharingGroupsGraphql, ...taxonomiesGraphql, ...warninglistsGraphql, ...serversGraphql];
const matrixRows: Row[] = [...restCases.map((c) => restRow(c)), ...graphqlCases.map((c) => graphqlRow(c))];
const furtherRows: Row[] = [...[...readPathsRest, ...exportsReadPaths, ...reportsReadPaths].map((c) => restRow(c, " (further path)")), ...readPathsGraphql.map((c) => graphqlRow(c, " (further path)"))];

let app: TestApp;
let w: CrossOrgWorld;
let before: Snapshot;

/** The taxonomies and warninglists update routes only need to succeed. */
const sources = smallSources();

beforeAll(async () => {
  app = await startTestApp("cross-org", { ROLE: "all", GALAXY_SOURCE: sharedPath("misp-galaxy"), ...sources.env });
  w = await buildWorld(app);
  before = await snapshotOrg(app.booted.ctx.db.pool, w.a.org.id);
}, 180_000);
afterAll(async () => {
  await w?.server.close();
  await app?.close();
  sources.remove();
});

const finished = (runId: string) => finishedRun(app, w.site, runId);

describe("coverage", () => {
  it("every route of the REST table has exactly one row", () => {
    expect(uncoveredRoutes(restCases)).toEqual([]);
  });
  it("every GraphQL root field has exactly one row", () => {
    expect(uncoveredFields([...graphqlCases, ...subscriptionCases].map((c) => c.field))).toEqual([]);
  });
  it("every registered task has exactly one row", () => {
    const rows = taskCases.map((c) => c.task).sort();
    expect(rows).toEqual(registeredTasks().map((t) => t.name).sort());
  });
});

describe("REST, as B's org admin, user, read-only user and narrow key", () => {
  it.each(restCases.map((c) => restRow(c)))("$name", async (row) => {
    expect(await bProblems(w, row)).toEqual([]);
  });
});

describe("GraphQL, as B's org admin, user, read-only user and narrow key", () => {
  it.each(graphqlCases.map((c) => graphqlRow(c)))("$name", async (row) => {
    expect(await bProblems(w, row)).toEqual([]);
  });
});

describe("tasks aimed at A's resources, as B's org admin", () => {
  const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
  const feedHits = () => w.server.hits.filter((h) => h.path.startsWith(new URL(w.a.networkFeed.url).pathname)).length;

  it.each(taskCases)("$task: refused when scheduled, and each run of a stored schedule fails with its reason", async (c) => {
    const undo = await c.arrange?.(w);
    const hitsBefore = feedHits();
    try {
      const kwargs = c.kwargs(w);
      const scheduled = await app.http.post("/tasks/schedule", {
        authorization: w.credential("bAdmin"),
        json: { name: w.unique("B"), task: c.task, schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs, enabled: false },
      });
      expect(c.refusedWith, scheduled.text).toContain(scheduled.status);

      // A schedule stored before targets were checked (or whose target moved since), owned by B's org admin.
      const stored = await insertScheduledTask(app.booted.ctx.db.pool, {
        name: w.unique("B stored"), task: c.task, args: [], kwargs, schedule: { type: "interval", every: 1, period: "days" }, enabled: false, ownerId: w.users.bAdmin.id, grantScopes: ["*"], nextRunAt: null,
      });
      const runNow = await app.http.post(`/tasks/scheduled/${stored.id}/run`, { authorization: w.credential("bAdmin") });
      if (runNow.status === 202) {
        const run = await finished(runNow.body.task_id);
        expect(run.status, JSON.stringify(run)).toBe("failed");
        expect(run.last_error).toBeTruthy();
      } else {
        expect([403, 404, 422], runNow.text).toContain(runNow.status);
      }

      // Fired by the ticker: the check at the start of the run, as the owner of now.
      await q("UPDATE scheduled_tasks SET enabled = true, next_run_at = now() WHERE id = $1", [stored.id]);
      await wakeTicker(app.booted.ctx.db.pool);
      const fired = await eventually(async () => {
        const { rows } = await q("SELECT status, last_error FROM task_runs WHERE scheduled_task_id = $1 AND trigger <> 'manual' AND status IN ('succeeded', 'failed')", [stored.id]);
        return rows[0];
      }, `${c.task}: the ticker's run`, 30_000, 100);
      await q("UPDATE scheduled_tasks SET enabled = false WHERE id = $1", [stored.id]);
      expect(fired.status, JSON.stringify(fired)).toBe("failed");
      expect(fired.last_error).toBeTruthy();
      expect(feedHits(), "A's feed server was asked").toBe(hitsBefore);
    } finally {
      await undo?.();
    }
  });
});

describe("import paths: B imports aimed at A", () => {
  const q = async (sql: string, params: unknown[] = []) => (await app.booted.ctx.db.pool.query(sql, params)).rows;
  const rows = importPaths.flatMap((path) => importAttacks.map((attack) => ({ name: `${path.name}: ${attack.name}`, path, attack })));

  it.each(rows)("$name", async ({ path, attack }) => {
    const organisations = (await q("SELECT count(*)::int AS n FROM organisations"))[0].n;
    const aEvent = await q("SELECT info, org_id, orgc_id, timestamp FROM events WHERE uuid = $1", [w.a.privateEvent.uuid]);
    const aAttribute = await q("SELECT value, event_id, deleted FROM attributes WHERE uuid = $1", [w.a.privateAttribute.uuid]);
    const event = attack.event(w);
    const outcome = await path.send(w, event);
    if (outcome.run) {
      expect(outcome.run.status, outcome.text).toBe("succeeded");
      expect(outcome.run.result, outcome.text).toMatchObject(attack.accepted ? { events_created: 1, rejected: 0 } : { events_created: 0, events_updated: 0, rejected: 1 });
    } else {
      expect(attack.accepted ? [200, 201] : [403, 404, 409], outcome.text.slice(0, 500)).toContain(outcome.status);
    }
    await settled(app, 60_000);

    expect(await q("SELECT info, org_id, orgc_id, timestamp FROM events WHERE uuid = $1", [w.a.privateEvent.uuid])).toEqual(aEvent);
    expect(await q("SELECT value, event_id, deleted FROM attributes WHERE uuid = $1", [w.a.privateAttribute.uuid])).toEqual(aAttribute);
    expect((await q("SELECT count(*)::int AS n FROM organisations"))[0].n, "an import created an organisation").toBe(organisations);
    // Whatever was stored is B's: owner, creator and sightings.
    const stored = await q("SELECT org_id, orgc_id FROM events WHERE uuid = $1 AND uuid <> $2", [event.uuid, w.a.privateEvent.uuid]);
    for (const e of stored) expect(e).toEqual({ org_id: w.orgB.id, orgc_id: w.orgB.id });
    const sightingOrgs = await q("SELECT DISTINCT s.org_id FROM sightings s JOIN events e ON e.id = s.event_id WHERE e.uuid = $1 AND e.uuid <> $2", [event.uuid, w.a.privateEvent.uuid]);
    for (const s of sightingOrgs) expect(s.org_id).toBe(w.orgB.id);
  });

  it("a feed of B's whose event is A's private event: its values go to an event of B's", async () => {
    const before = await q("SELECT count(*)::int AS n, max(timestamp) AS ts FROM attributes WHERE event_id = (SELECT id FROM events WHERE uuid = $1)", [w.a.privateEvent.uuid]);
    const { created, run, value } = await feedIntoForeignEvent(w);
    if (created === 201) {
      expect(run?.status, JSON.stringify(run)).toBe("succeeded");
      const stored = await q("SELECT e.org_id, e.uuid::text FROM attributes a JOIN events e ON e.id = a.event_id WHERE a.value = $1", [value]);
      expect(stored.map((s) => s.org_id)).toEqual([w.orgB.id]);
    } else {
      expect([403, 404, 422]).toContain(created);
    }
    expect(await q("SELECT count(*)::int AS n, max(timestamp) AS ts FROM attributes WHERE event_id = (SELECT id FROM events WHERE uuid = $1)", [w.a.privateEvent.uuid])).toEqual(before);
  });
});

describe("further paths: A's shared event, B's own event, B's caller-wide writes", () => {
  it.each(furtherRows)("$name", async (row) => {
    expect(await bProblems(w, row)).toEqual([]);
  });
  // The events index holds one document per event for every reader: it counts what all of them may
  // see, and owners' hits get their full counts when answered.
  it("GET /events/search: a hit's attribute_count counts only what B may see", async () => {
    const res = await app.http.get(`/events/search?size=10&query=${encodeURIComponent(`uuid:${w.a.sharedEvent.uuid}`)}`, { authorization: w.credential("bUser") });
    expect(res.status, res.text).toBe(200);
    // B sees the shared attribute and the one inside the shared object.
    expect(res.body.results.map((h: { _source: { attribute_count: number } }) => h._source.attribute_count)).toEqual([2]);
  });
});

describe("afterwards", () => {
  it("nothing organisation A owns has changed", async () => {
    await settled(app, 60_000);
    const after = await snapshotOrg(app.booted.ctx.db.pool, w.a.org.id);
    expect(changedTables(before, after)).toEqual([]);
  });
});

/** B's people follow A's events and organisation, and B's network (a follow may name any uuid). */
async function followA(): Promise<void> {
  for (const actor of ["bAdmin", "bUser", "bRead"] as const) {
    await w.call(actor, "POST", "/settings/user/notifications", {
      follow: { events: [w.a.privateEvent.uuid, w.a.sharedEvent.uuid], attributes: [w.a.privateAttribute.uuid, w.bEvent.network.uuid], objects: [], organisations: [w.a.org.uuid] },
    });
  }
}

describe("subscriptions: B's subscribers never get what A's change causes", () => {
  beforeAll(followA);
  it.each(subscriptionCases)("$field", async (c) => {
    const subscribers = subscribeAll(w, c, [...B_ACTORS, "aUser"]);
    try {
      const witness = subscribers.received.get("aUser")!;
      await afterTrigger(w, c, witness);
      expect(witness.data.length).toBeGreaterThan(c.initial);
      for (const actor of B_ACTORS) {
        const got = subscribers.received.get(actor)!;
        if (w.holds(actor, c.scopes)) {
          expect(got.data.length, `${actor}: ${got.data.join(" ")} ${got.errors.join(" ")}`).toBe(c.initial);
          expect(leaks(w, got.data.join(" ")), actor).toEqual([]);
        } else {
          expect(got.data, actor).toEqual([]);
          expect(got.errors.join(" "), actor).toMatch(/insufficient_scope|403|scope/i);
        }
      }
    } finally {
      await subscribers.close();
    }
  });
});

describe("notifications about A's shared event", () => {
  beforeAll(followA);
  it("B's followers (of the event, and of B's network it correlates with) are never shown the distribution-0 attributes A adds to it; A's followers are", async () => {
    await w.call("aUser", "POST", "/settings/user/notifications", {
      follow: { events: [w.a.privateEvent.uuid, w.a.sharedEvent.uuid], attributes: [w.a.privateAttribute.uuid], objects: [], organisations: [w.a.org.uuid] },
      email_notifications: false,
    });
    const value = `${w.unique("added-late")}.example.org`;
    const address = w.a.sharedHiddenIp.value.replace(/\d+$/, (n) => String(Number(n) + 1));
    for (const [type, v] of [["domain", value], ["ip-dst", address]]) {
      const added = await w.call("aAdmin", "POST", "/attributes/", { event_uuid: w.a.sharedEvent.uuid, type, value: v, distribution: 0 });
      w.privateStrings.push(v.toLowerCase(), String(added.uuid).toLowerCase());
    }
    await settled(app, 60_000);
    // The address correlates with B's network (a pair B may not see).
    const pairs = await app.booted.ctx.db.pool.query(
      `SELECT 1 FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id
        WHERE (s.uuid = $1 AND t.value = $2) OR (t.uuid = $1 AND s.value = $2)`,
      [w.bEvent.network.uuid, address],
    );
    expect(pairs.rowCount).toBeGreaterThan(0);
    const query = `{ notifications(size: 100) { items { type entityUuid payload ${everyField("NotificationPayload")} } } }`;
    await eventually(async () => {
      const text = (await app.http.get("/notifications?size=100", { authorization: w.credential("aUser") })).text;
      return text.includes(value) && text.includes(address);
    }, "A's user's notifications", 15_000, 100);
    for (const actor of ["bAdmin", "bUser", "bRead"] as const) {
      const rest = await app.http.get("/notifications?size=100", { authorization: w.credential(actor) });
      const gql = await app.http.request("POST", "/graphql", { authorization: w.credential(actor), json: { query } });
      expect(rest.status).toBe(200);
      expect(leaks(w, rest.text + gql.text), actor).toEqual([]);
    }
    // The same change at a level B may see does reach B's follower of the network.
    const visible = w.a.sharedHiddenIp.value.replace(/\d+$/, (n) => String(Number(n) + 2));
    await w.call("aAdmin", "POST", "/attributes/", { event_uuid: w.a.sharedEvent.uuid, type: "ip-dst", value: visible, distribution: 5 });
    await settled(app, 60_000);
    await eventually(async () => (await app.http.get("/notifications?size=100", { authorization: w.credential("bUser") })).text.includes(visible), "B's follower's notification of a visible pair", 15_000, 100);
  });
});

describe("the same requests from the site administrator or A's own user succeed", () => {
  it.each(validationOrder([...matrixRows, ...furtherRows]))("$name", async (row) => {
    expect(await validatorProblem(w, row)).toBeNull();
  });
});

/**
 * The rows that read through the search layer, again on OpenSearch (when OPENSEARCH_URL is set):
 * both backends filter on the audience each document carries.
 */
describe.skipIf(!OPENSEARCH)("searches on OpenSearch", () => {
  const searching = [...matrixRows.filter((r) => /search|correlation|^GET \/(events|attributes)\/export$/i.test(r.name) && /^(GET |Query\.)/.test(r.name)), ...furtherRows.filter((r) => /^(GET |Query\.|POST \/hunts)/.test(r.name))];
  let os: TestApp;
  let wo: CrossOrgWorld;
  beforeAll(async () => {
    os = await startTestApp("cross-org-os", { ROLE: "all", ...SEARCH_BACKENDS.find((b) => b.name === "opensearch")!.env() });
    wo = await buildWorld(os);
  }, 180_000);
  afterAll(async () => {
    await wo?.server.close();
    await os?.close();
  });
  it.each(searching)("$name", async (row) => {
    expect(await bProblems(wo, row)).toEqual([]);
    expect(await validatorProblem(wo, row)).toBeNull();
  });
});
