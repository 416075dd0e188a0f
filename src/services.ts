import type { AppContext } from "./app-context.ts";
import { Authenticator } from "./auth/authenticate.ts";
import { AuthService } from "./auth/auth.service.ts";
import { AuditService } from "./modules/audit/audit.service.ts";
import { apiKeyResolver } from "./modules/api-keys/api-key-auth.ts";
import { ApiKeysService } from "./modules/api-keys/api-keys.service.ts";
import { EventsService } from "./modules/events/events.service.ts";
import { AttributesService } from "./modules/attributes/attributes.service.ts";
import { ObjectsService } from "./modules/objects/objects.service.ts";
import { TagsService } from "./modules/tags/tags.service.ts";
import { SightingsService } from "./modules/sightings/sightings.service.ts";
import { GalaxiesService } from "./modules/galaxies/galaxies.service.ts";
import { OrganisationsService } from "./modules/organisations/organisations.service.ts";
import { RolesService } from "./modules/roles/roles.service.ts";
import { SearchService } from "./modules/search/search.service.ts";
import { CorrelationsService } from "./modules/correlations/correlations.service.ts";
import { SettingsService } from "./modules/settings/settings.service.ts";
import { UsersService } from "./modules/users/users.service.ts";
import { RetentionService } from "./modules/retention/retention.service.ts";
import { TasksService } from "./modules/tasks/tasks.service.ts";
import { FeedsService } from "./modules/feeds/feeds.service.ts";
import { NotificationsService } from "./modules/notifications/notifications.service.ts";
import { HuntsService } from "./modules/hunts/hunts.service.ts";
import { HuntEngine } from "./modules/hunts/hunt-engine.ts";
import { ExportsService } from "./modules/exports/exports.service.ts";
import { McpConfigService } from "./mcp/mcp-config.service.ts";

/** Every service, built once per process from the app context. Resolvers and routes only call these. */
export function createServices(ctx: AppContext) {
  const audit = new AuditService(ctx.db.prisma);
  const authenticator = new Authenticator(ctx.db.pool, ctx.tokens, apiKeyResolver(ctx.db.pool, ctx.authCache), ctx.authCache);
  const search = new SearchService(ctx);
  const retention = new RetentionService(ctx);
  const galaxies = new GalaxiesService(ctx, audit);
  const huntEngine = new HuntEngine(ctx, search, galaxies);
  return {
    authenticator,
    audit,
    auth: new AuthService(ctx, audit),
    users: new UsersService(ctx, audit),
    roles: new RolesService(ctx, audit),
    organisations: new OrganisationsService(ctx, audit),
    settings: new SettingsService(ctx, audit),
    apiKeys: new ApiKeysService(ctx, audit),
    galaxies,
    events: new EventsService(ctx, retention),
    retention,
    attributes: new AttributesService(ctx),
    objects: new ObjectsService(ctx),
    tags: new TagsService(ctx),
    sightings: new SightingsService(ctx),
    search,
    correlations: new CorrelationsService(ctx, audit, search),
    tasks: new TasksService(ctx, audit),
    feeds: new FeedsService(ctx, audit),
    notifications: new NotificationsService(ctx),
    hunts: new HuntsService(ctx, audit, huntEngine),
    huntEngine,
    exports: new ExportsService(ctx, audit),
    mcpConfig: new McpConfigService(ctx, audit),
  };
}

export type Services = ReturnType<typeof createServices>;
