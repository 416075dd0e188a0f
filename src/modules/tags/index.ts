/** The tags area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { checkTagName } from "./tag-rules.ts";
export { TagsService } from "./tags.service.ts";
export type { TagFields, TagRecord } from "./tags.service.ts";
