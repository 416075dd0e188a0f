/** The warninglists area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { ENTRY_PAGE_DEFAULT, ENTRY_PAGE_MAX, WARNINGLIST_CHECK_MAX, WARNINGLIST_PAGE_DEFAULT, WARNINGLIST_PAGE_MAX, warninglistCheckContract, warninglistEntriesContract, warninglistFlagsContract, warninglistListContract } from "./warninglists.contracts.ts";
export { WARNING_DOC, WARNINGLIST_DOC, WARNINGLIST_TYPES_DOC, WARNINGLIST_UPDATE_DOC } from "./warninglists.docs.ts";
export { WarninglistsService } from "./warninglists.service.ts";
export type { WarninglistCheckResult, WarninglistPage, WarninglistUpdateResult, WarninglistWithEntries } from "./warninglists.service.ts";
export { VERSION_CHECK_MS, WARNINGLISTS_CHANNEL, WarninglistCache, compileEnabledLists } from "./warninglist-cache.ts";
export { WARNINGLIST_TYPES, WarninglistBuilder, WarninglistMatcher, hostOf, parseNet } from "./matchers.ts";
export type { ListMeta, Warning, WarninglistType } from "./matchers.ts";
export { compileWarninglistRegex, REGEX_MAX_INPUT } from "./safe-regex.ts";
export { WARNINGS_CHANGED, queueHitRecompute, recomputeHits, recomputeHitsTask } from "./recompute-hits.ts";
