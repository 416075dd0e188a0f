import { mispAttributeRoutes } from "./attributes.ts";
import { mispConnectRoutes } from "./connect.ts";
import { mispEventRoutes } from "./events.ts";
import { mispFeedRoutes } from "./feeds.ts";
import { mispFreeTextRoutes } from "./free-text.ts";
import { mispKnowledgeRoutes } from "./knowledge.ts";
import type { MispRouteDef } from "./misp-route.ts";
import { mispObjectRoutes } from "./objects.ts";
import { mispRestSearchRoutes } from "./rest-search.ts";
import { mispSightingRoutes } from "./sightings.ts";
import { mispTagRoutes } from "./tags.ts";

/** The MISP-compatible API (issue 26, first slice): served under /misp/ by misp-register.ts, listed in the route table. */
export const mispRoutes: MispRouteDef[] = [...mispConnectRoutes, ...mispEventRoutes, ...mispAttributeRoutes, ...mispTagRoutes, ...mispSightingRoutes, ...mispRestSearchRoutes, ...mispFreeTextRoutes, ...mispObjectRoutes, ...mispFeedRoutes, ...mispKnowledgeRoutes];
export { registerMispApi } from "./misp-register.ts";
export { MISP_PREFIX } from "./misp-route.ts";
export { mispException } from "./misp-errors.ts";
