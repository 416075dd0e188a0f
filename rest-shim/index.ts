import type { RouteDef } from "./route.ts";
import { apiKeyRoutes } from "./routes/api-keys.ts";
import { auditLogRoutes } from "./routes/audit-logs.ts";
import { authRoutes } from "./routes/auth.ts";
import { attributeRoutes } from "./routes/attributes.ts";
import { eventRoutes } from "./routes/events.ts";
import { exploreExportRoutes } from "./routes/explore-export.ts";
import { exportRoutes } from "./routes/exports.ts";
import { objectRoutes } from "./routes/objects.ts";
import { reportRoutes } from "./routes/reports.ts";
import { sightingRoutes } from "./routes/sightings.ts";
import { tagRoutes } from "./routes/tags.ts";
import { galaxyRoutes } from "./routes/galaxies.ts";
import { taxonomyRoutes } from "./routes/taxonomies.ts";
import { warninglistRoutes } from "./routes/warninglists.ts";
import { huntRoutes } from "./routes/hunts.ts";
import { organisationRoutes } from "./routes/organisations.ts";
import { roleRoutes } from "./routes/roles.ts";
import { searchRoutes } from "./routes/search.ts";
import { correlationRoutes } from "./routes/correlations.ts";
import { retentionRoutes } from "./routes/retention.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { feedRoutes } from "./routes/feeds.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { sharingGroupRoutes } from "./routes/sharing-groups.ts";
import { serverRoutes } from "./routes/servers.ts";
import { userRoutes } from "./routes/users.ts";
import { mcpRoutes } from "../src/mcp/mcp-config.routes.ts";
import { mispRoutes } from "./misp/index.ts";

/** The REST surface the REST shim serves (rest-shim/register.ts). Order matters only for readability: paths are matched exactly. */
export const restRouteTable: RouteDef[] = [...authRoutes, ...userRoutes, ...roleRoutes, ...organisationRoutes, ...sharingGroupRoutes, ...settingsRoutes, ...apiKeyRoutes, ...auditLogRoutes, ...galaxyRoutes, ...taxonomyRoutes, ...warninglistRoutes, ...searchRoutes, ...exploreExportRoutes, ...correlationRoutes, ...taskRoutes, ...huntRoutes, ...exportRoutes, ...feedRoutes, ...serverRoutes, ...notificationRoutes, ...retentionRoutes, ...eventRoutes, ...attributeRoutes, ...objectRoutes, ...reportRoutes, ...tagRoutes, ...sightingRoutes, ...mcpRoutes];

/** Every route: the REST shim's and the MISP-compatible API's (served by rest-shim/misp/), for /openapi.json and the matrices. */
export const routeTable: RouteDef[] = [...restRouteTable, ...mispRoutes];
