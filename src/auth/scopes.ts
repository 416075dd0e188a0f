import { MCP_TOOL_NAMES } from "../mcp/tool-names.ts";

/**
 * The scope catalogue and the one place where grants are matched. A scope is `<resource>:<action>`;
 * a grant list satisfies it when it holds `*`, `<resource>:*` or the scope itself.
 */
const RESOURCES: Record<string, { label: string; actions: Record<string, string> }> = {
  users: {
    label: "users",
    actions: {
      me: "Read and update your own account.",
      create: "Create users.",
      read: "Read users.",
      update: "Update users (role, organisation, disabled flag, password).",
      delete: "Delete users.",
    },
  },
  organisations: { label: "organisations", actions: crud("organisations") },
  roles: { label: "roles", actions: crud("roles") },
  events: {
    label: "events",
    actions: {
      ...crud("events"),
      tag: "Tag and untag events.",
      publish: "Publish and unpublish events.",
      import: "Import events in MISP JSON format.",
      sync: "Import as another organisation (sync): keep the file's Orgc and sighting organisations, creating unknown ones. Without it an import is always your organisation's.",
    },
  },
  attributes: { label: "attributes", actions: { ...crud("attributes"), tag: "Tag and untag attributes." } },
  objects: { label: "objects", actions: crud("objects") },
  reports: { label: "event reports", actions: crud("event reports") },
  tags: {
    label: "tags",
    actions: { ...crud("tags"), admin: "Rename, recolour, change and delete tag definitions, which every organisation shares (beside tags:update / tags:delete)." },
  },
  sharing_groups: {
    label: "sharing groups",
    actions: {
      read: "Read the sharing groups your organisation owns or belongs to.",
      create: "Create sharing groups owned by your organisation.",
      update: "Change your organisation's sharing groups and their members (members allowed to extend may add organisations).",
      delete: "Delete your organisation's sharing groups that no data uses.",
    },
  },
  taxonomies: { label: "taxonomies", actions: { ...crud("taxonomies"), admin: "Change taxonomies, which every organisation shares (beside taxonomies:update)." } },
  warninglists: {
    label: "warninglists",
    actions: {
      read: "Read the warninglists (known-good or noisy values) and their entries.",
      update: "Import, enable and disable warninglists, which every organisation shares.",
    },
  },
  galaxies: {
    label: "galaxies",
    actions: { ...crud("galaxies"), admin: "Import, enable and disable galaxies, which every organisation shares (beside galaxies:update)." },
  },
  sightings: { label: "sightings", actions: crud("sightings") },
  correlations: {
    label: "correlations",
    actions: {
      read: "Read and search correlations.",
      create: "Run correlation rebuilds.",
      delete: "Delete correlations.",
      admin: "Delete all correlations, run rebuilds (beside correlations:delete / correlations:create) and manage exclusions: instance-wide.",
    },
  },
  feeds: {
    label: "feeds",
    actions: {
      ...crud("feeds"),
      fetch: "Trigger feed fetches.",
      preview: "Preview feed contents without ingesting.",
      test: "Test feed connections.",
    },
  },
  servers: {
    label: "MISP servers (sync)",
    actions: {
      read: "Read your organisation's sync servers (never their API keys) and preview what a pull would take.",
      create: "Add sync servers for your organisation.",
      update: "Change your organisation's sync servers and their rules.",
      delete: "Delete your organisation's sync servers.",
      test: "Test the connection to a sync server.",
      pull: "Pull events from a sync server (with events:create and events:sync).",
      push: "Push your organisation's events to a sync server (with events:read).",
    },
  },
  hunts: {
    label: "hunts",
    actions: { ...crud("hunts"), run: "Run hunts now." },
  },
  exports: {
    label: "exports",
    actions: {
      create: "Create your exports, run them and change their schedule.",
      read: "List your exports and download their files.",
      delete: "Delete your exports.",
    },
  },
  tasks: {
    label: "scheduled tasks and jobs",
    actions: {
      create: "Create scheduled tasks.",
      read: "Read scheduled tasks and job status.",
      update: "Update, pause and resume scheduled tasks.",
      delete: "Delete scheduled tasks.",
      run: "Trigger a scheduled task now.",
    },
  },
  settings: {
    label: "runtime settings",
    actions: {
      read: "Read runtime settings; retention preview.",
      update: "Change runtime settings.",
      delete: "Reset runtime settings to their defaults.",
    },
  },
  user_settings: {
    label: "your own user settings",
    actions: {
      read: "Read your own user settings.",
      update: "Write your own user settings (follows, saved searches).",
      delete: "Delete your own user settings.",
    },
  },
  notifications: {
    label: "notifications",
    actions: { read: "Read your notifications and subscribe to them.", update: "Mark, unfollow and delete your notifications." },
  },
  api_keys: {
    label: "API keys",
    actions: {
      read: "List your own API keys.",
      create: "Create API keys.",
      update: "Enable or disable your own API keys.",
      delete: "Delete your own API keys.",
      admin: "List, lock, unlock and delete any user's API keys.",
    },
  },
  audit_logs: { label: "audit log", actions: { admin: "Read the audit log." } },
  mcp: {
    label: "MCP server",
    actions: {
      config: "Generate an MCP client configuration (mints an MCP-only API key).",
      use: "Use every MCP server tool, resource and prompt.",
      ...Object.fromEntries(MCP_TOOL_NAMES.map((tool) => [tool, `Use the MCP tool ${tool} (and the resources and prompts).`])),
    },
  },
};

function crud(what: string): Record<string, string> {
  return {
    create: `Create ${what}.`,
    read: `Read ${what}.`,
    update: `Update ${what}.`,
    delete: `Delete ${what}.`,
  };
}

/** Every scope the service knows, with a one-line description. */
export const SCOPE_CATALOGUE: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    Object.entries(RESOURCES).flatMap(([res, { actions }]) =>
      Object.entries(actions).map(([action, text]) => [`${res}:${action}`, text]),
    ),
  ),
);

export const ADMIN_SCOPE = "*";

/**
 * Scopes over what every organisation shares (instance-wide objects, other organisations' data,
 * identity): no built-in role but the administrator's holds them; the roles API can grant them.
 */
const ADMIN_LEVEL_SCOPES: ReadonlySet<string> = new Set([
  "events:sync",
  "tags:admin",
  "taxonomies:admin",
  "warninglists:update",
  "galaxies:admin",
  "correlations:admin",
  "settings:update",
  "settings:delete",
  "organisations:create",
  "organisations:update",
  "organisations:delete",
  "roles:create",
  "roles:update",
  "roles:delete",
  "api_keys:admin",
  "audit_logs:admin",
]);

export function isAdminLevelScope(scope: string): boolean {
  return scope === ADMIN_SCOPE || ADMIN_LEVEL_SCOPES.has(scope);
}

/** `*`, `<known resource>:*` and catalogue scopes are valid scope strings. */
export function isKnownScope(scope: string): boolean {
  if (scope === ADMIN_SCOPE) return true;
  if (scope.endsWith(":*")) return Object.hasOwn(RESOURCES, scope.slice(0, -2));
  return Object.hasOwn(SCOPE_CATALOGUE, scope);
}

/** Does this grant list allow `required`? `required` may itself be a wildcard (`events:*`, `*`). */
export function grants(granted: readonly string[], required: string): boolean {
  if (granted.includes(ADMIN_SCOPE)) return true;
  if (required === ADMIN_SCOPE) return false;
  const resource = required.slice(0, required.indexOf(":"));
  if (granted.includes(`${resource}:*`)) return true;
  if (required.endsWith(":*")) return false;
  return granted.includes(required);
}

/**
 * Effective permissions are the intersection of several grant lists (role, token scope, API key):
 * a scope is held when every list grants it. Kept as lists instead of a computed set so wildcards
 * intersect exactly.
 */
export function grantedByAll(grantSets: readonly (readonly string[])[], required: string): boolean {
  // No grant list at all grants nothing (every() of an empty list would say yes).
  return grantSets.length > 0 && grantSets.every((set) => grants(set, required));
}

/**
 * Results by the identity of the grant lists: a principal's lists come from the authentication
 * cache, so the same arrays recur request after request, and the walk over the catalogue
 * (hundreds of checks) is done once per cached key or user instead of once per request.
 */
const effectiveByLists = new WeakMap<readonly string[], WeakMap<readonly string[], readonly string[]>>();

/** The catalogue scopes (and wildcards) an intersection of grant lists holds, for display. */
export function effectiveScopes(grantSets: readonly (readonly string[])[]): string[] {
  if (grantSets.length === 0 || grantSets.length > 2) return computeEffectiveScopes(grantSets);
  const [first, second = first] = grantSets;
  let inner = effectiveByLists.get(first);
  if (!inner) effectiveByLists.set(first, (inner = new WeakMap()));
  let result = inner.get(second);
  if (!result) inner.set(second, (result = computeEffectiveScopes(grantSets)));
  return [...result];
}

function computeEffectiveScopes(grantSets: readonly (readonly string[])[]): string[] {
  if (grantedByAll(grantSets, ADMIN_SCOPE)) return [ADMIN_SCOPE];
  const out: string[] = [];
  for (const res of Object.keys(RESOURCES)) {
    if (grantedByAll(grantSets, `${res}:*`)) out.push(`${res}:*`);
    else for (const action of Object.keys(RESOURCES[res].actions)) {
      if (grantedByAll(grantSets, `${res}:${action}`)) out.push(`${res}:${action}`);
    }
  }
  return out;
}
