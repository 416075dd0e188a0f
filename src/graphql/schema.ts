import { lexicographicSortSchema, printSchema, type GraphQLSchema } from "graphql";
import { builder } from "./builder.ts";
// Each module registers its types, queries, mutations and subscriptions on the shared builder.
import "../modules/roles/roles.graphql.ts";
import "../modules/organisations/organisations.graphql.ts";
import "../modules/sharing-groups/sharing-groups.graphql.ts";
import "../modules/users/users.graphql.ts";
import "../modules/settings/settings.graphql.ts";
import "../modules/api-keys/api-keys.graphql.ts";
import "../modules/audit/audit.graphql.ts";
import "../modules/galaxies/galaxies.graphql.ts";
import "../modules/taxonomies/taxonomies.graphql.ts";
import "../modules/warninglists/warninglists.graphql.ts";
import "../modules/events/events.graphql.ts";
import "../modules/attributes/attributes.graphql.ts";
import "../modules/objects/objects.graphql.ts";
import "../modules/reports/reports.graphql.ts";
import "../modules/tags/tags.graphql.ts";
import "../modules/sightings/sightings.graphql.ts";
import "../modules/search/search.graphql.ts";
import "../modules/correlations/correlations.graphql.ts";
import "../modules/tasks/tasks.graphql.ts";
import "../modules/retention/retention.graphql.ts";
import "../modules/feeds/feeds.graphql.ts";
import "../modules/servers/servers.graphql.ts";
import "../modules/notifications/notifications.graphql.ts";
import "../modules/hunts/hunts.graphql.ts";
import "../modules/exports/exports.graphql.ts";
import "../mcp/mcp.graphql.ts";

let schema: GraphQLSchema | null = null;

export function graphqlSchema(): GraphQLSchema {
  schema ??= lexicographicSortSchema(builder.toSchema());
  return schema;
}

/** What `schema.graphql` at the repository root must contain. */
export function printedSchema(): string {
  return printSchema(graphqlSchema()) + "\n";
}
