import type { CaseContext } from "./expectations.ts";
import { everyField, type GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * The correlation documents the caller may list: every count the caller gets (statistics,
 * histogram) must add up to it, or it counts pairs the caller may not see.
 */
async function listedCorrelations({ w, actor }: CaseContext): Promise<number> {
  const res = await w.app.http.get("/correlations/?size=1", { authorization: w.credential(actor) });
  return res.body.total;
}
const countsListed = (what: string, got: number, listed: number) => (got === listed ? null : `${what} ${got}, but the caller lists ${listed} correlation documents`);

/**
 * Correlations, galaxies, scheduled tasks, hunts, feeds and notifications. Correlations, galaxies,
 * exclusions and rebuilds are instance-wide (reads filtered by distribution, writes need
 * correlations:admin / galaxies:admin); hunts, schedules and runs belong to their user, feeds and
 * uploads to their organisation, notifications to their user.
 */
export const operationsRest: RestCase[] = [
  // ---- correlations ----
  {
    route: "GET /correlations/",
    request: ({ w }) => ({ path: `/correlations/?source_event_uuid=${w.a.privateEvent.uuid}&size=100` }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid],
  },
  { route: "GET /correlations/search", request: () => ({ path: "/correlations/search?query=*&size=100" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid] },
  {
    route: "GET /correlations/stats", request: () => ({ path: "/correlations/stats" }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: async (s, ctx) => countsListed("total_correlations", s.total_correlations, await listedCorrelations(ctx)),
  },
  { route: "GET /correlations/events/{source_event_uuid}/top", request: ({ w }) => ({ path: `/correlations/events/${w.a.privateEvent.uuid}/top` }), b: "hidden", validator: { status: 200 } },
  {
    route: "GET /correlations/histogram", request: () => ({ path: "/correlations/histogram?interval=1M" }),
    b: "filtered", validator: { status: 200 },
    bCheck: async (h, ctx) => countsListed("the histogram's doc_count", bucketsOf(h).reduce((n, b) => n + b.doc_count, 0), await listedCorrelations(ctx)),
  },
  // Instance-wide: the administrator's rebuild and deletion run after every other validation.
  { route: "POST /correlations/run", request: () => ({ path: "/correlations/run" }), b: "denied", validator: { status: 202 }, validateLast: true },
  { route: "DELETE /correlations/", request: () => ({ path: "/correlations/" }), b: "denied", validator: { status: 200 }, validateLast: true },
  { route: "GET /correlations/run/{rebuild_id}", request: ({ w }) => ({ path: `/correlations/run/${w.shared.rebuildId}` }), b: "shared", validator: { status: 200 } },
  { route: "GET /correlations/exclusions", request: () => ({ path: "/correlations/exclusions" }), b: "shared", validator: { status: 200 } },
  {
    route: "POST /correlations/exclusions",
    // Excluding a value of A's would drop A's correlations.
    request: ({ w, validating }) => ({ path: "/correlations/exclusions", json: { value: validating ? `${w.unique("x")}.%` : w.a.privateAttribute2.value } }),
    b: "denied", validator: { status: 201 },
  },
  {
    route: "DELETE /correlations/exclusions/{exclusion_id}",
    request: async ({ w, validating }) => ({ path: `/correlations/exclusions/${validating ? await w.throwaway.exclusion() : w.shared.exclusionId}` }),
    b: "denied", validator: { status: 204 },
  },

  // ---- galaxies ----
  { route: "POST /galaxies/update", request: () => ({ path: "/galaxies/update" }), b: "denied", validator: { status: 200 } },
  { route: "GET /galaxies/", request: () => ({ path: "/galaxies/?size=100" }), b: "shared", validator: { status: 200 } },
  { route: "GET /galaxies/mitre-attack-patterns", request: () => ({ path: "/galaxies/mitre-attack-patterns?filter=T1059" }), b: "shared", validator: { status: 200 } },
  { route: "GET /galaxies/{galaxy_id}", request: ({ w }) => ({ path: `/galaxies/${w.shared.galaxy.uuid}` }), b: "shared", validator: { status: 200 } },
  { route: "GET /galaxies/{galaxy_id}/clusters", request: ({ w }) => ({ path: `/galaxies/${w.shared.galaxy.id}/clusters` }), b: "shared", validator: { status: 200 } },
  { route: "PATCH /galaxies/{galaxy_id}", request: ({ w }) => ({ path: `/galaxies/${w.shared.galaxy.id}`, json: { enabled: true } }), b: "denied", validator: { status: 200 } },

  // ---- scheduled tasks and runs ----
  { route: "GET /tasks/registered", request: () => ({ path: "/tasks/registered" }), b: "shared", validator: { status: 200 } },
  {
    route: "POST /tasks/schedule",
    // A's hunt in the kwargs: 422 naming kwargs.hunt_id (tasks.cases.ts does every task).
    request: ({ w }) => ({ path: "/tasks/schedule", json: { name: w.unique("B"), task: "run_hunt", schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs: { hunt_id: w.a.hunt.id }, enabled: false } }),
    b: "denied", also: [422], validator: { status: 201 },
  },
  { route: "GET /tasks/scheduled", request: () => ({ path: "/tasks/scheduled" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.schedule.id] },
  { route: "GET /tasks/scheduled/{task_id}", request: ({ w }) => ({ path: `/tasks/scheduled/${w.a.schedule.id}` }), b: "hidden", validator: { status: 200 } },
  { route: "PATCH /tasks/scheduled/{task_id}", request: ({ w }) => ({ path: `/tasks/scheduled/${w.a.schedule.id}`, json: { name: "renamed by B" } }), b: "hidden", validator: { status: 200 } },
  {
    route: "DELETE /tasks/scheduled/{task_id}",
    request: async ({ w, validating }) => ({ path: `/tasks/scheduled/${validating ? await w.throwaway.schedule() : w.a.schedule.id}` }),
    b: "hidden", validator: { status: 200 },
  },
  { route: "POST /tasks/scheduled/{task_id}/run", request: ({ w }) => ({ path: `/tasks/scheduled/${w.a.schedule.id}/run` }), b: "hidden", validator: { status: 202 } },
  {
    route: "GET /tasks/",
    // The runs of another user's schedule: the schedule is not found.
    request: ({ w }) => ({ path: `/tasks/?limit=100&scheduled_task_id=${w.a.schedule.id}` }),
    b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.taskRun.id],
  },
  { route: "GET /tasks/active", request: () => ({ path: "/tasks/active" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.activeRun.id] },
  { route: "GET /tasks/{run_id}", request: ({ w }) => ({ path: `/tasks/${w.a.taskRun.id}` }), b: "hidden", validator: { status: 200 } },

  // ---- hunts ----
  // Another user's hunts are for administrators only: 403, whoever they belong to.
  { route: "GET /hunts/", request: ({ w }) => ({ path: `/hunts/?size=100&user_id=${w.users.aUser.id}` }), b: "denied", validator: { status: 200 }, validatorFinds: (w) => [w.a.hunt.name] },
  { route: "POST /hunts/", request: ({ w }) => ({ path: "/hunts/", json: { name: w.unique("B hunt"), query: "type:domain" } }), b: "own", ok: 201, validator: { status: 201 } },
  { route: "GET /hunts/{hunt_id}", request: ({ w }) => ({ path: `/hunts/${w.a.hunt.id}` }), b: "hidden", validator: { status: 200 } },
  { route: "PATCH /hunts/{hunt_id}", request: ({ w }) => ({ path: `/hunts/${w.a.hunt.id}`, json: { name: "renamed by B" } }), b: "hidden", validator: { status: 200 } },
  {
    route: "DELETE /hunts/{hunt_id}",
    request: async ({ w, validating }) => ({ path: `/hunts/${validating ? await w.throwaway.hunt() : w.a.hunt.id}` }),
    b: "hidden", validator: { status: 204 },
  },
  { route: "POST /hunts/{hunt_id}/run", request: ({ w }) => ({ path: `/hunts/${w.a.hunt.id}/run` }), b: "hidden", validator: { status: 200 } },
  { route: "GET /hunts/{hunt_id}/results", request: ({ w }) => ({ path: `/hunts/${w.a.hunt.id}/results` }), b: "hidden", validator: { status: 200 } },
  { route: "GET /hunts/{hunt_id}/history", request: ({ w }) => ({ path: `/hunts/${w.a.hunt.id}/history` }), b: "hidden", validator: { status: 200 } },
  {
    route: "DELETE /hunts/{hunt_id}/history",
    request: async ({ w, validating }) => ({ path: `/hunts/${validating ? await w.throwaway.hunt(true) : w.a.hunt.id}/history` }),
    b: "hidden", validator: { status: 204 },
  },

  // ---- feeds: an organisation's; upload keys too ----
  // A's upload is a text file: the administrator's json preview finds it and cannot parse it (400).
  ...(["csv", "json", "freetext"] as const).map(
    (format): RestCase => ({
      route: `POST /feeds/${format}/preview`,
      request: ({ w }) => ({ path: `/feeds/${format}/preview`, json: { input_source: "local", url: w.a.uploadKey } }),
      b: "hidden", validator: { status: format === "json" ? 400 : 200 },
    }),
  ),
  { route: "GET /feeds/{feed_id}/explore", request: ({ w }) => ({ path: `/feeds/${w.a.networkFeed.id}/explore` }), b: "hidden", validator: { status: 200 } },
  { route: "GET /feeds/", request: () => ({ path: "/feeds/?limit=1000" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.networkFeed.name, w.a.localFeed.name] },
  { route: "GET /feeds/{feed_id}", request: ({ w }) => ({ path: `/feeds/${w.a.networkFeed.id}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /feeds/upload",
    request: ({ w }) => ({ path: "/feeds/upload", multipart: { fields: { source_format: "csv" }, file: { name: "b.csv", content: `${w.unique("b-upload")}.example.org\n` } } }),
    b: "own", validator: { status: 200 },
  },
  {
    route: "POST /feeds/",
    // A's upload key: another organisation's upload is 404. A feed reads only its own
    // organisation's uploads, whoever sets it up: A's org admin proves the request valid.
    request: ({ w }) => ({ path: "/feeds/", json: { name: w.unique("B feed"), provider: "B", url: w.a.uploadKey, source_format: "freetext", input_source: "local" } }),
    b: "hidden", validator: { as: "aAdmin", status: 201 },
  },
  { route: "PATCH /feeds/{feed_id}", request: ({ w }) => ({ path: `/feeds/${w.a.networkFeed.id}`, json: { url: "https://feeds.example.org/b" } }), b: "hidden", validator: { status: 200 } },
  {
    route: "DELETE /feeds/{feed_id}",
    request: async ({ w, validating }) => ({ path: `/feeds/${validating ? await w.throwaway.feed() : w.a.networkFeed.id}` }),
    b: "hidden", validator: { status: 204 },
  },
  { route: "POST /feeds/{feed_id}/fetch", request: ({ w }) => ({ path: `/feeds/${w.a.networkFeed.id}/fetch` }), b: "hidden", validator: { status: 200 } },

  // ---- notifications: the caller's own ----
  {
    route: "GET /notifications",
    request: () => ({ path: "/notifications?size=100" }),
    b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
  },
  { route: "PATCH /notifications/{notification_id}/read", request: ({ w }) => ({ path: `/notifications/${w.a.notification.id}/read` }), b: "hidden", validator: { as: "aUser", status: 200 } },
  {
    route: "PATCH /notifications/{notification_id}/unfollow",
    request: async ({ w, validating }) => ({ path: `/notifications/${validating ? await w.throwaway.notification() : w.a.notification.id}/unfollow` }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
  {
    route: "DELETE /notifications/{notification_id}",
    request: async ({ w, validating }) => ({ path: `/notifications/${validating ? await w.throwaway.notification() : w.a.notification.id}` }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
];

export const operationsGraphql: GraphqlCase[] = [
  {
    field: "Query.correlations", scopes: ["correlations:read"],
    query: "query($e: String) { correlations(sourceEventUuid: $e, size: 100) { total hits { id source } } }",
    variables: ({ w }) => ({ e: w.a.privateEvent.uuid }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid],
  },
  { field: "Query.searchCorrelations", scopes: ["correlations:read"], query: "{ searchCorrelations(query: \"*\", size: 100) { total hits { id source } } }", b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid] },
  {
    field: "Query.correlationStats", scopes: ["correlations:read"],
    query: "{ correlationStats { totalCorrelations topCorrelatedEvents { key docCount } topCorrelatedAttributes { key eventUuid value } topCorrelatedValues { key docCount } } }",
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: async (r, ctx) => countsListed("totalCorrelations", r.data.correlationStats.totalCorrelations, await listedCorrelations(ctx)),
  },
  { field: "Query.correlationTopEvents", scopes: ["correlations:read"], query: "query($e: String!) { correlationTopEvents(eventUuid: $e) { key docCount } }", variables: ({ w }) => ({ e: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 } },
  {
    field: "Query.correlationHistogram", scopes: ["correlations:read"], query: "{ correlationHistogram(interval: \"1M\") { key docCount } }",
    b: "filtered", validator: { status: 200 },
    bCheck: async (r, ctx) => countsListed("the histogram's docCount", r.data.correlationHistogram.reduce((n: number, b: { docCount: number }) => n + b.docCount, 0), await listedCorrelations(ctx)),
  },
  { field: "Query.correlationRebuild", scopes: ["correlations:read"], query: "query($id: Int!) { correlationRebuild(id: $id) { id status } }", variables: ({ w }) => ({ id: w.shared.rebuildId }), b: "shared", validator: { status: 200 } },
  { field: "Query.correlationExclusions", scopes: ["correlations:read"], query: "{ correlationExclusions { id value } }", b: "shared", validator: { status: 200 } },
  {
    field: "Mutation.addCorrelationExclusion", scopes: ["correlations:admin"],
    query: "mutation($v: String!) { addCorrelationExclusion(value: $v) { id } }",
    variables: ({ w, validating }) => ({ v: validating ? `${w.unique("x")}.%` : w.a.privateAttribute2.value }),
    b: "denied", validator: { status: 200 },
  },
  {
    field: "Mutation.deleteCorrelationExclusion", scopes: ["correlations:admin"],
    query: "mutation($id: Int!) { deleteCorrelationExclusion(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.exclusion() : w.shared.exclusionId }),
    b: "denied", validator: { status: 200 },
  },
  { field: "Mutation.startCorrelationRebuild", scopes: ["correlations:create", "correlations:admin"], query: "mutation { startCorrelationRebuild { id } }", b: "denied", validator: { status: 200 }, validateLast: true },
  { field: "Mutation.deleteCorrelations", scopes: ["correlations:delete", "correlations:admin"], query: "mutation { deleteCorrelations { deleted } }", b: "denied", validator: { status: 200 }, validateLast: true },

  { field: "Query.galaxies", scopes: ["galaxies:read"], query: "{ galaxies(size: 100) { items { id name } } }", b: "shared", validator: { status: 200 } },
  { field: "Query.galaxy", scopes: ["galaxies:read"], query: "query($id: Int) { galaxy(id: $id) { id name } }", variables: ({ w }) => ({ id: w.shared.galaxy.id }), b: "shared", validator: { status: 200 } },
  { field: "Query.galaxyClusters", scopes: ["galaxies:read"], query: "query($id: Int) { galaxyClusters(galaxyId: $id) { items { value } } }", variables: ({ w }) => ({ id: w.shared.galaxy.id }), b: "shared", validator: { status: 200 } },
  { field: "Query.mitreAttackPatterns", scopes: ["galaxies:read"], query: "{ mitreAttackPatterns(filter: \"T1059\") { externalId } }", b: "shared", validator: { status: 200 } },
  { field: "Mutation.setGalaxyEnabled", scopes: ["galaxies:update", "galaxies:admin"], query: "mutation($id: Int!) { setGalaxyEnabled(id: $id, enabled: true) { id } }", variables: ({ w }) => ({ id: w.shared.galaxy.id }), b: "denied", validator: { status: 200 } },
  { field: "Mutation.updateGalaxies", scopes: ["galaxies:update", "galaxies:admin"], query: "mutation { updateGalaxies { galaxies } }", b: "denied", validator: { status: 200 } },

  { field: "Query.registeredTasks", scopes: ["tasks:read"], query: "{ registeredTasks { name } }", b: "shared", validator: { status: 200 } },
  {
    field: "Mutation.scheduleTask", scopes: ["tasks:create"],
    query: "mutation($n: String!, $k: JSON) { scheduleTask(name: $n, task: \"run_hunt\", kwargs: $k, enabled: false, schedule: { type: INTERVAL, every: 1, period: DAYS }) { id } }",
    variables: ({ w }) => ({ n: w.unique("B"), k: { hunt_id: w.a.hunt.id } }),
    b: "denied", also: [422], validator: { status: 200 },
  },
  { field: "Query.scheduledTasks", scopes: ["tasks:read"], query: "{ scheduledTasks(size: 100) { items { id name kwargs } } }", b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.schedule.id] },
  { field: "Query.scheduledTask", scopes: ["tasks:read"], query: "query($id: String!) { scheduledTask(id: $id) { id name } }", variables: ({ w }) => ({ id: w.a.schedule.id }), b: "hidden", validator: { status: 200 } },
  { field: "Mutation.updateScheduledTask", scopes: ["tasks:update"], query: "mutation($id: String!) { updateScheduledTask(id: $id, name: \"renamed by B\") { id } }", variables: ({ w }) => ({ id: w.a.schedule.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.deleteScheduledTask", scopes: ["tasks:delete"],
    query: "mutation($id: String!) { deleteScheduledTask(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.schedule() : w.a.schedule.id }),
    b: "hidden", validator: { status: 200 },
  },
  { field: "Mutation.runScheduledTask", scopes: ["tasks:run"], query: "mutation($id: String!) { runScheduledTask(id: $id) { id } }", variables: ({ w }) => ({ id: w.a.schedule.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Query.taskRuns", scopes: ["tasks:read"],
    query: "query($s: String) { taskRuns(size: 100, scheduledTaskId: $s) { items { id task kwargs result } } }",
    variables: ({ w }) => ({ s: w.a.schedule.id }),
    b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.taskRun.id],
  },
  { field: "Query.taskRun", scopes: ["tasks:read"], query: "query($id: String!) { taskRun(id: $id) { id result } }", variables: ({ w }) => ({ id: w.a.taskRun.id }), b: "hidden", validator: { status: 200 } },

  {
    field: "Query.hunts", scopes: ["hunts:read"],
    query: "query($u: Int) { hunts(size: 100, userId: $u) { items { id name query } } }",
    variables: ({ w }) => ({ u: w.users.aUser.id }),
    b: "denied", validator: { status: 200 }, validatorFinds: (w) => [w.a.hunt.name],
  },
  { field: "Query.hunt", scopes: ["hunts:read"], query: "query($id: Int!) { hunt(id: $id) { id name } }", variables: ({ w }) => ({ id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { field: "Query.huntResults", scopes: ["hunts:read"], query: `query($id: Int!) { huntResults(id: $id) { total hits ${everyField("HuntHit")} } }`, variables: ({ w }) => ({ id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { field: "Query.huntHistory", scopes: ["hunts:read"], query: "query($id: Int!) { huntHistory(id: $id) { items { id status } } }", variables: ({ w }) => ({ id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { field: "Mutation.createHunt", scopes: ["hunts:create"], query: "mutation($n: String!) { createHunt(input: { name: $n, query: \"type:domain\" }) { id } }", variables: ({ w }) => ({ n: w.unique("B hunt") }), b: "own", validator: { status: 200 } },
  { field: "Mutation.updateHunt", scopes: ["hunts:update"], query: "mutation($id: Int!) { updateHunt(id: $id, input: { name: \"renamed by B\" }) { id } }", variables: ({ w }) => ({ id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { field: "Mutation.runHunt", scopes: ["hunts:run"], query: "mutation($id: Int!) { runHunt(id: $id) { total } }", variables: ({ w }) => ({ id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.deleteHunt", scopes: ["hunts:delete"],
    query: "mutation($id: Int!) { deleteHunt(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.hunt() : w.a.hunt.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.clearHuntHistory", scopes: ["hunts:delete"],
    query: "mutation($id: Int!) { clearHuntHistory(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.hunt(true) : w.a.hunt.id }),
    b: "hidden", validator: { status: 200 },
  },

  { field: "Query.feeds", scopes: ["feeds:read"], query: "{ feeds(size: 100) { items { id name url provider headers eventUuid } } }", b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.networkFeed.name, w.a.localFeed.name] },
  { field: "Query.feed", scopes: ["feeds:read"], query: "query($id: Int!) { feed(id: $id) { id name url runs { total items { id result } } } }", variables: ({ w }) => ({ id: w.a.networkFeed.id }), b: "hidden", validator: { status: 200 } },
  { field: "Query.feedExplore", scopes: ["feeds:read"], query: "query($id: Int!) { feedExplore(id: $id) { total items { uuid entry } } }", variables: ({ w }) => ({ id: w.a.networkFeed.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Query.feedPreview", scopes: ["feeds:preview"],
    query: "query($u: String!) { feedPreview(format: CSV, inputSource: LOCAL, url: $u) { value } }",
    variables: ({ w }) => ({ u: w.a.uploadKey }),
    b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.localFeed.value],
  },
  {
    field: "Mutation.uploadFeedFile", scopes: ["feeds:create"],
    query: "mutation($file: Upload!) { uploadFeedFile(file: $file, sourceFormat: \"csv\") { key } }",
    upload: { name: "b.csv", content: "198.51.100.77\n" },
    b: "own", validator: { status: 200 },
  },
  {
    field: "Mutation.createFeed", scopes: ["feeds:create"],
    query: "mutation($f: FeedFields!) { createFeed(feed: $f) { feed { id } } }",
    variables: ({ w }) => ({ f: { name: w.unique("B feed"), provider: "B", url: w.a.uploadKey, sourceFormat: "FREETEXT", inputSource: "LOCAL" } }),
    b: "hidden", validator: { as: "aAdmin", status: 200 },
  },
  { field: "Mutation.updateFeed", scopes: ["feeds:update"], query: "mutation($id: Int!) { updateFeed(id: $id, feed: { url: \"https://feeds.example.org/b\" }) { id } }", variables: ({ w }) => ({ id: w.a.networkFeed.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.deleteFeed", scopes: ["feeds:delete"],
    query: "mutation($id: Int!) { deleteFeed(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.feed() : w.a.networkFeed.id }),
    b: "hidden", validator: { status: 200 },
  },
  { field: "Mutation.fetchFeed", scopes: ["feeds:fetch"], query: "mutation($id: Int!) { fetchFeed(id: $id) { id } }", variables: ({ w }) => ({ id: w.a.networkFeed.id }), b: "hidden", validator: { status: 200 } },

  { field: "Query.notifications", scopes: ["notifications:read"], query: `{ notifications(size: 100) { items { id type entityUuid payload ${everyField("NotificationPayload")} } } }`, b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid] },
  { field: "Query.unreadNotificationCount", scopes: ["notifications:read"], query: "{ unreadNotificationCount }", b: "own", validator: { as: "aUser", status: 200 } },
  { field: "Mutation.markNotificationRead", scopes: ["notifications:update"], query: "mutation($id: String!) { markNotificationRead(id: $id) }", variables: ({ w }) => ({ id: String(w.a.notification.id) }), b: "hidden", validator: { as: "aUser", status: 200 } },
  {
    field: "Mutation.deleteNotification", scopes: ["notifications:update"],
    query: "mutation($id: String!) { deleteNotification(id: $id) }",
    variables: async ({ w, validating }) => ({ id: String(validating ? await w.throwaway.notification() : w.a.notification.id) }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
  {
    field: "Mutation.unfollowNotification", scopes: ["notifications:update"],
    query: "mutation($id: Int!) { unfollowNotification(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.notification() : w.a.notification.id }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
];

/** The histogram's buckets, whether answered as a list or under `buckets` (OpenSearch's shape). */
function bucketsOf(h: unknown): { doc_count: number }[] {
  if (Array.isArray(h)) return h;
  const o = h as { buckets?: { doc_count: number }[] };
  return o.buckets ?? [];
}
