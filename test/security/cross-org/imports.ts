import crypto from "node:crypto";
import { zip } from "../../support/archives.ts";
import { finished, upload, type CrossOrgWorld } from "./world.ts";

/**
 * Every way a MISP event gets in, as B: the REST import, the GraphQL import, a MISP network feed of
 * B's (served by the loopback server) and a MISP sharing archive B uploads for a local feed. Each
 * carries one attack on A: a newer copy of A's private event, an attribute with the uuid of A's
 * private attribute, an event claiming to come from A (Orgc), sightings claimed by A.
 */
export interface ImportOutcome {
  /** The HTTP (or GraphQL) status of the import request, or of the feed fetch request. */
  status: number;
  /** For feeds: the run, with its counts. */
  run?: { status: string; last_error: string | null; result: Record<string, unknown> | null };
  text: string;
}

export interface ImportPath {
  name: string;
  send(w: CrossOrgWorld, event: Record<string, unknown>): Promise<ImportOutcome>;
}

type Json = Record<string, unknown>;

async function viaFeed(w: CrossOrgWorld, event: Json, local: boolean): Promise<ImportOutcome> {
  const uuid = String(event.uuid);
  const manifest = JSON.stringify({ [uuid]: { info: event.info, timestamp: Number(event.timestamp) } });
  const json = JSON.stringify({ Event: event });
  const name = w.unique("B import feed");
  let url: string;
  if (local) {
    url = await upload(w.app, w.users.bAdmin.token, "b.zip", zip([{ name: "manifest.json", data: manifest }, { name: `${uuid}.json`, data: json }]), "sharing");
  } else {
    const path = `/${w.unique("b-feed")}/`;
    w.server.routes.set(`${path}manifest.json`, { type: "application/json", body: manifest });
    w.server.routes.set(`${path}${uuid}.json`, { type: "application/json", body: json });
    url = `${w.server.url}${path}`;
  }
  const created = await w.app.http.post("/feeds/", { authorization: w.credential("bAdmin"), json: { name, provider: "B", url, source_format: "misp", input_source: local ? "local" : "network" } });
  if (created.status !== 201) return { status: created.status, text: created.text };
  let runId: string = created.body.ingestion?.id;
  let status = created.status;
  if (!local) {
    const fetched = await w.app.http.post(`/feeds/${created.body.id}/fetch`, { authorization: w.credential("bAdmin") });
    if (fetched.status !== 200) return { status: fetched.status, text: fetched.text };
    status = fetched.status;
    runId = fetched.body.task.id;
  }
  const run = await finished(w.app, w.site, runId);
  return { status, run: { status: run.status, last_error: run.last_error, result: run.result }, text: JSON.stringify(run) };
}

/**
 * A csv network feed of B's whose event (the one its values go to) is set to A's private event:
 * the fetch writes the values to a new event of B's instead (and says so).
 */
export async function feedIntoForeignEvent(w: CrossOrgWorld): Promise<{ created: number; run: Record<string, any> | null; value: string }> {
  const value = `${w.unique("b-value")}.example.org`;
  const path = `/${w.unique("b-csv")}.csv`;
  w.server.routes.set(path, { type: "text/csv", body: `${value}\n` });
  const created = await w.app.http.post("/feeds/", {
    authorization: w.credential("bAdmin"),
    json: { name: w.unique("B csv feed"), provider: "B", url: `${w.server.url}${path}`, source_format: "freetext", input_source: "network", fixed_event: true, event_uuid: w.a.privateEvent.uuid },
  });
  if (created.status !== 201) return { created: created.status, run: null, value };
  const fetched = await w.app.http.post(`/feeds/${created.body.id}/fetch`, { authorization: w.credential("bAdmin") });
  return { created: created.status, run: fetched.status === 200 ? await finished(w.app, w.site, fetched.body.task.id) : null, value };
}

export const importPaths: ImportPath[] = [
  {
    name: "POST /events/import",
    async send(w, event) {
      const res = await w.app.http.post("/events/import", { authorization: w.credential("bUser"), json: { Event: event } });
      return { status: res.status, text: res.text };
    },
  },
  {
    name: "GraphQL importMispEvent",
    async send(w, event) {
      const res = await w.app.http.request("POST", "/graphql", {
        authorization: w.credential("bUser"),
        json: { query: "mutation($e: JSON!) { importMispEvent(event: $e) { created event { uuid } } }", variables: { e: { Event: event } } },
      });
      return { status: res.body.errors?.[0]?.extensions?.status ?? res.status, text: res.text };
    },
  },
  { name: "a MISP network feed of B's", send: (w, event) => viaFeed(w, event, false) },
  { name: "a MISP sharing archive of B's (local feed)", send: (w, event) => viaFeed(w, event, true) },
];

const now = () => String(Math.floor(Date.now() / 1000));
const attribute = (value: string, extra: Json = {}) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value, timestamp: now(), ...extra });

export interface ImportAttack {
  name: string;
  /** Stored as B's (true), or refused: 403/404/409 for a request, a rejected event for a feed. */
  accepted: boolean;
  event(w: CrossOrgWorld): Json;
}

export const importAttacks: ImportAttack[] = [
  {
    name: "a newer copy of A's private event",
    accepted: false,
    event: (w) => ({ uuid: w.a.privateEvent.uuid, info: `taken over by B ${w.unique("x")}`, distribution: "3", timestamp: now(), Attribute: [attribute(`${w.unique("b")}.example.org`)] }),
  },
  {
    name: "an attribute with the uuid of A's private attribute",
    accepted: false,
    event: (w) => ({
      uuid: crypto.randomUUID(), info: w.unique("B event"), distribution: "3", timestamp: now(),
      Attribute: [{ ...attribute(`${w.unique("b")}.example.org`), uuid: w.a.privateAttribute.uuid }],
    }),
  },
  {
    name: "an event claiming to come from A (Orgc)",
    accepted: true,
    event: (w) => ({
      uuid: crypto.randomUUID(), info: w.unique("from A, says B"), distribution: "3", timestamp: now(),
      Orgc: { uuid: w.a.org.uuid, name: w.a.org.name }, Org: { uuid: w.a.org.uuid, name: w.a.org.name },
      Attribute: [attribute(`${w.unique("b")}.example.org`)],
    }),
  },
  {
    name: "sightings claimed by A",
    accepted: true,
    event: (w) => ({
      uuid: crypto.randomUUID(), info: w.unique("B sightings"), distribution: "3", timestamp: now(),
      Attribute: [attribute(`${w.unique("b")}.example.org`, { Sighting: [{ uuid: crypto.randomUUID(), type: "0", date_sighting: now(), source: "B", Organisation: { uuid: w.a.org.uuid, name: w.a.org.name } }] })],
    }),
  },
];
