import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Scheduled tasks and retention. Role 3 (owner, otherUser) holds no tasks:* scope, so every task
 * route is the administrator's here; ownership between two users who hold tasks:* (404 for the
 * other one) is in test/integration/tasks.test.ts. Retention status needs events:read (any user),
 * the preview settings:read.
 */
async function asAdmin(w: MatrixWorld, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token: w.admin.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const scheduleBody = (w: MatrixWorld) => ({ name: w.unique("matrix"), task: "generate_correlations", schedule_type: "interval", interval: { every: 1, period: "days" }, enabled: false });
const scheduled = async (w: MatrixWorld) => (await asAdmin(w, "POST", "/tasks/schedule", scheduleBody(w))).id as string;

export const taskCases: MatrixCase[] = [
  { route: "GET /tasks/registered", request: () => ({ path: "/tasks/registered" }), expect: expectFor.adminOnly(200) },
  { route: "POST /tasks/schedule", request: (_a, w) => ({ path: "/tasks/schedule", json: scheduleBody(w) }), expect: expectFor.adminOnly(201) },
  { route: "GET /tasks/scheduled", request: () => ({ path: "/tasks/scheduled" }), expect: expectFor.adminOnly(200) },
  { route: "GET /tasks/scheduled/{task_id}", request: async (_a, w) => ({ path: `/tasks/scheduled/${await scheduled(w)}` }), expect: expectFor.adminOnly(200) },
  {
    route: "PATCH /tasks/scheduled/{task_id}",
    request: async (_a, w) => ({ path: `/tasks/scheduled/${await scheduled(w)}`, json: { name: "renamed" } }),
    expect: expectFor.adminOnly(200),
  },
  { route: "DELETE /tasks/scheduled/{task_id}", request: async (_a, w) => ({ path: `/tasks/scheduled/${await scheduled(w)}` }), expect: expectFor.adminOnly(200) },
  { route: "POST /tasks/scheduled/{task_id}/run", request: async (_a, w) => ({ path: `/tasks/scheduled/${await scheduled(w)}/run` }), expect: expectFor.adminOnly(202) },
  { route: "GET /tasks/", request: () => ({ path: "/tasks/?limit=5" }), expect: expectFor.adminOnly(200) },
  { route: "GET /tasks/active", request: () => ({ path: "/tasks/active" }), expect: expectFor.adminOnly(200) },
  {
    route: "GET /tasks/{run_id}",
    request: async (_a, w) => ({ path: `/tasks/${(await asAdmin(w, "POST", `/tasks/scheduled/${await scheduled(w)}/run`)).task_id}` }),
    expect: expectFor.adminOnly(200),
  },
  { route: "GET /events/retention/status", request: () => ({ path: "/events/retention/status" }), expect: expectFor.anyUser(200) },
  { route: "GET /events/retention/preview", request: () => ({ path: "/events/retention/preview?period_days=30" }), expect: expectFor.adminOnly(200) },
];
