import type { Actor, MatrixCase } from "../../support/authz-matrix.ts";

/**
 * MISP's restSearch (rest-shim/misp/rest-search.ts). MISP answers a missing or refused credential
 * with 403; the `wrongScope` key (tags:read only) lacks events:read and attributes:read. Every other
 * caller may search: what they find is their own business, checked by hit sets in
 * test/integration/misp-rest-search.test.ts (another organisation's events are never among them).
 */
const anyUser: Record<Actor, number> = { anonymous: 403, wrongScope: 403, otherUser: 200, owner: 200, admin: 200 };

export const mispSearchCases: MatrixCase[] = (["events", "attributes"] as const).flatMap((controller): MatrixCase[] => [
  { route: `POST /misp/${controller}/restSearch`, request: () => ({ path: `/misp/${controller}/restSearch`, json: { value: "192.0.2.44", limit: 5 } }), expect: anyUser },
  { route: `GET /misp/${controller}/restSearch`, request: () => ({ path: `/misp/${controller}/restSearch/value:192.0.2.44/limit:5` }), expect: anyUser },
]);
