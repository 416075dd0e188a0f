import type { AppContext } from "./app-context.ts";
import { Authenticator } from "./auth/authenticate.ts";
import { AuthService } from "./auth/auth.service.ts";
import { AuditService } from "./modules/audit/index.ts";
import { apiKeyResolver } from "./modules/api-keys/index.ts";
import { ApiKeysService } from "./modules/api-keys/index.ts";
import { EventsService } from "./modules/events/index.ts";
import { AttributesService } from "./modules/attributes/index.ts";
import { ObjectsService } from "./modules/objects/index.ts";
import { ReportsService } from "./modules/reports/index.ts";
import { TagsService } from "./modules/tags/index.ts";
import { SightingsService } from "./modules/sightings/index.ts";
import { GalaxiesService } from "./modules/galaxies/index.ts";
import { TaxonomiesService } from "./modules/taxonomies/index.ts";
import { WarninglistsService } from "./modules/warninglists/index.ts";
import { OrganisationsService } from "./modules/organisations/index.ts";
import { SharingGroupsService } from "./modules/sharing-groups/index.ts";
import { RolesService } from "./modules/roles/index.ts";
import { SearchService } from "./modules/search/index.ts";
import { CorrelationsService } from "./modules/correlations/index.ts";
import { SettingsService } from "./modules/settings/index.ts";
import { UsersService } from "./modules/users/index.ts";
import { RetentionService } from "./modules/retention/index.ts";
import { TasksService } from "./modules/tasks/index.ts";
import { FeedsService } from "./modules/feeds/index.ts";
import { ServersService } from "./modules/servers/index.ts";
import { NotificationsService } from "./modules/notifications/index.ts";
import { HuntsService } from "./modules/hunts/index.ts";
import { HuntEngine } from "./modules/hunts/index.ts";
import { ExportsService } from "./modules/exports/index.ts";
import { McpConfigService } from "./mcp/mcp-config.service.ts";

/** Every service, built once per process from the app context. Resolvers and routes only call these. */
export function createServices(ctx: AppContext) {
  const audit = new AuditService(ctx.db.prisma);
  const authenticator = new Authenticator(ctx.db.pool, ctx.tokens, apiKeyResolver(ctx.db.pool, ctx.authCache), ctx.authCache);
  const search = new SearchService(ctx);
  const retention = new RetentionService(ctx);
  const galaxies = new GalaxiesService(ctx, audit);
  const huntEngine = new HuntEngine(ctx, search, galaxies);
  const sharingGroups = new SharingGroupsService(ctx, audit);
  const events = new EventsService(ctx, retention, sharingGroups);
  return {
    authenticator,
    audit,
    auth: new AuthService(ctx, audit),
    users: new UsersService(ctx, audit),
    roles: new RolesService(ctx, audit),
    organisations: new OrganisationsService(ctx, audit),
    sharingGroups,
    settings: new SettingsService(ctx, audit),
    apiKeys: new ApiKeysService(ctx, audit),
    galaxies,
    taxonomies: new TaxonomiesService(ctx, audit),
    warninglists: new WarninglistsService(ctx, audit),
    events,
    retention,
    attributes: new AttributesService(ctx),
    objects: new ObjectsService(ctx),
    reports: new ReportsService(ctx),
    tags: new TagsService(ctx),
    sightings: new SightingsService(ctx),
    search,
    correlations: new CorrelationsService(ctx, audit, search),
    tasks: new TasksService(ctx, audit),
    feeds: new FeedsService(ctx, audit),
    servers: new ServersService(ctx, audit, events),
    notifications: new NotificationsService(ctx),
    hunts: new HuntsService(ctx, audit, huntEngine),
    huntEngine,
    exports: new ExportsService(ctx, audit),
    mcpConfig: new McpConfigService(ctx, audit),
  };
}

export type Services = ReturnType<typeof createServices>;
