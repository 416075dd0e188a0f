import type { MatrixCase, MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Notifications are the caller's own: the owner's id is found, anyone else's (the other user's,
 * the administrator's) is 404; `all` acts on the caller's own rows. The owner's notification is
 * written straight into the table: producing one needs a follow and a worker (see
 * test/integration/notifications.test.ts).
 */
async function ownersNotification(w: MatrixWorld): Promise<number> {
  const { rows } = await w.app.booted.ctx.db.pool.query<{ id: number }>(
    `INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key)
     VALUES ($1, 'event.updated', 'event', gen_random_uuid(), '{"event_uuid": "00000000-0000-4000-8000-000000000000"}', 'matrix:' || gen_random_uuid()) RETURNING id`,
    [w.owner.id],
  );
  return rows[0].id;
}

const own = { anonymous: 401, wrongScope: 403, otherUser: 404, owner: 200, admin: 404 };
const anyone = { anonymous: 401, wrongScope: 403, otherUser: 200, owner: 200, admin: 200 };

export const notificationCases: MatrixCase[] = [
  { route: "GET /notifications", request: () => ({ path: "/notifications" }), expect: anyone },
  { route: "PATCH /notifications/{notification_id}/read", request: async (_a, w) => ({ path: `/notifications/${await ownersNotification(w)}/read` }), expect: own },
  { route: "PATCH /notifications/{notification_id}/unfollow", request: async (_a, w) => ({ path: `/notifications/${await ownersNotification(w)}/unfollow` }), expect: own },
  { route: "DELETE /notifications/{notification_id}", request: async (_a, w) => ({ path: `/notifications/${await ownersNotification(w)}` }), expect: own },
];
