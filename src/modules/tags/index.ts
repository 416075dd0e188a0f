/** The tags area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { checkTagName } from "./tag-rules.ts";
export { MAX_TAG_LOOKUP, MAX_TAG_USAGE, tagCreateContract, tagListContract, tagName, tagUpdateContract, tagUsageContract, tagsByNameContract, tagsLikeContract } from "./tags.contracts.ts";
export type { TagCreate, TagFields, TagListQuery } from "./tags.contracts.ts";
export { TagsService } from "./tags.service.ts";
export type { TagQuery, TagRecord } from "./tags.service.ts";
export { parseMachineTag } from "./machine-tag.ts";
export type { MachineTag } from "./machine-tag.ts";
export { tagSuggestContract } from "./tag-suggestions.ts";
export type { TagSuggestion } from "./tag-suggestions.ts";
