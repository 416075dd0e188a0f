/**
 * The MCP tools served at /mcp. Kept apart (no imports) because the scope catalogue lists one
 * `mcp:<tool>` scope per tool, so roles and keys can be narrowed to single tools.
 */
export const MCP_TOOL_NAMES = [
  "search_events",
  "search_attributes",
  "get_event",
  "get_attribute",
  "get_tags",
  "detect_indicator_type",
  "list_hunts",
  "get_hunt_results",
  "get_correlations",
  "get_statistics",
  "get_sightings",
  "search_galaxy",
  "check_warninglists",
  "get_hunt_history",
  "get_notifications",
  "run_hunt",
  "create_hunt",
  "follow",
  "unfollow",
  "add_sighting",
  "create_event",
  "add_attributes",
  "export",
  "list_servers",
  "test_server_connection",
  "preview_server_pull",
  "pull_server",
] as const;

export type McpToolName = (typeof MCP_TOOL_NAMES)[number];
