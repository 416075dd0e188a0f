/** The servers area's front door (MISP sync): what the REST shim, GraphQL, jobs and other areas may use. */
export { RULES_DOC, SERVER_DOC } from "./servers.docs.ts";
export { eventUuidContract, previewPullContract, pullRulesContract, pushRulesContract, serverCreateContract, serverPatchContract } from "./servers.contracts.ts";
export type { PreviewPullInput, PullRules, PushRules, ServerInput, ServerPatch } from "./servers.contracts.ts";
export { ServersService } from "./servers.service.ts";
export type { ConnectionReport, ServerView } from "./servers.service.ts";
export type { PreviewEntry, PullCounts, PushCounts } from "./sync.ts";
export { serverPullTask, serverPushTask } from "./server-tasks.ts";
