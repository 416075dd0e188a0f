import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { sharedPath, smallSources } from "../support/shared-data.ts";
import { ACTORS, buildWorld, runCase, uncoveredRoutes, type MatrixCase, type MatrixWorld } from "../support/authz-matrix.ts";
import { correlationCases } from "./matrix/correlations.cases.ts";
import { dataCoreCases } from "./matrix/data-core.cases.ts";
import { eventCases } from "./matrix/events.cases.ts";
import { galaxyCases } from "./matrix/galaxies.cases.ts";
import { identityCases } from "./matrix/identity.cases.ts";
import { taskCases } from "./matrix/tasks.cases.ts";
import { feedCases } from "./matrix/feeds.cases.ts";
import { notificationCases } from "./matrix/notifications.cases.ts";
import { huntCases } from "./matrix/hunts.cases.ts";
import { mcpCases } from "./matrix/mcp.cases.ts";
import { exportCases } from "./matrix/exports.cases.ts";
import { reportCases } from "./matrix/reports.cases.ts";
import { sharingGroupCases } from "./matrix/sharing-groups.cases.ts";
import { taxonomyCases } from "./matrix/taxonomies.cases.ts";
import { warninglistCases } from "./matrix/warninglists.cases.ts";
import { mispCases } from "./matrix/misp.cases.ts";
import { mispSearchCases } from "./matrix/misp-search.cases.ts";
import { mispMoreCases } from "./matrix/misp-more.cases.ts";
import { serverCases } from "./matrix/servers.cases.ts";

/** Every area adds its cases here; the coverage test fails for any route without a row. */
const cases: MatrixCase[] = [...identityCases, ...galaxyCases, ...eventCases, ...dataCoreCases, ...correlationCases, ...taskCases, ...feedCases, ...notificationCases, ...huntCases, ...mcpCases, ...exportCases, ...reportCases, ...sharingGroupCases, ...taxonomyCases, ...warninglistCases, ...mispCases, ...mispSearchCases, ...mispMoreCases, ...serverCases];

let app: TestApp;
let world: MatrixWorld;

/** The taxonomies and warninglists update routes only need to succeed. */
const sources = smallSources();

beforeAll(async () => {
  app = await startTestApp("matrix", { GALAXY_SOURCE: sharedPath("misp-galaxy"), ...sources.env });
  world = await buildWorld(app);
});
afterAll(async () => {
  await app?.close();
  sources.remove();
});

it("covers every route of the REST table", () => {
  expect(uncoveredRoutes(cases)).toEqual([]);
});

describe.each(cases)("$route", (c) => {
  it.each(ACTORS)("%s", async (actor) => {
    const { status, text } = await runCase(c, actor, world);
    expect(status, `${c.route} as ${actor}: ${text.slice(0, 300)}`).toBe(c.expect[actor]);
  });
});
