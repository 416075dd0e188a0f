import { z } from "zod";
import { wireContract } from "../contract.ts";
import { defineRoute } from "../route.ts";
import { idParams, intId, skipLimitQuery } from "../schemas.ts";
import { previewPullContract, pullRulesContract, pushRulesContract, serverCreateContract, serverPatchContract } from "../../src/modules/servers/index.ts";
import { taskRunOut } from "../serializers/tasks.ts";
import {
  ServerConnectionSchema,
  ServerPreviewSchema,
  ServerPullResultSchema,
  ServerPushResultSchema,
  ServerSchema,
  ServerSyncStartedSchema,
  pullResultOut,
  pushResultOut,
  serverConnectionOut,
  serverOut,
  serverPreviewOut,
  syncStartedOut,
} from "../serializers/servers.ts";

/** The servers contracts on the wire: snake_case fields, the rules' too. */
const pullRulesWire = wireContract(pullRulesContract);
const pushRulesWire = wireContract(pushRulesContract);
const rulesCodecs = { pullRules: pullRulesWire.schema.optional(), pushRules: pushRulesWire.schema.optional() };
const createWire = wireContract(serverCreateContract, { codecs: rulesCodecs });
const patchWire = wireContract(serverPatchContract, { codecs: rulesCodecs });
const previewWire = wireContract(previewPullContract);
const serverId = idParams("server_id");
const eventParams = z.object({ server_id: intId, event_uuid: z.string().max(64) }).strict();

export const serverRoutes = [
  defineRoute({
    method: "GET", path: "/servers/", operationId: "listServers", tag: "servers", summary: "Your organisation's MISP servers (administrators: every one), skip/limit, plain array; API keys are never answered",
    scopes: ["servers:read"], status: 200, response: z.array(ServerSchema), query: skipLimitQuery,
    handler: async ({ principal, query, services }) => (await services.servers.list(principal, query)).map(serverOut),
  }),
  defineRoute({
    method: "POST", path: "/servers/", operationId: "createServer", tag: "servers", summary: "Add a MISP server for your organisation: url, authkey (stored encrypted, write-only), pull and push rules",
    scopes: ["servers:create"], status: 201, response: ServerSchema, body: createWire.object,
    handler: async ({ principal, body, services }) => serverOut(await services.servers.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "GET", path: "/servers/{server_id}", operationId: "getServer", tag: "servers", summary: "One MISP server of your organisation (another's: 404)",
    scopes: ["servers:read"], status: 200, response: ServerSchema, params: serverId,
    handler: async ({ principal, params, services }) => serverOut(await services.servers.get(principal, params.server_id)),
  }),
  defineRoute({
    method: "PATCH", path: "/servers/{server_id}", operationId: "updateServer", tag: "servers", summary: "Change a MISP server; a new authkey replaces the stored one; changed pull rules, url or organisation start the next pull from the beginning",
    scopes: ["servers:update"], status: 200, response: ServerSchema, params: serverId, body: patchWire.object,
    handler: async ({ principal, params, body, services }) => serverOut(await services.servers.update(principal, params.server_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/servers/{server_id}", operationId: "deleteServer", tag: "servers", summary: "Delete a MISP server and the schedules that pull from or push to it (pulled events stay)",
    scopes: ["servers:delete"], status: 204, params: serverId,
    handler: ({ principal, params, services }) => services.servers.delete(principal, params.server_id),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/test-connection", operationId: "testServerConnection", tag: "servers",
    summary: "Ask the remote its version (servers/getVersion) and who the key is (users/view/me): ok, version, perm_sync, user, organisation and the problems found; a failure is in the answer, not an error",
    scopes: ["servers:test"], status: 200, response: ServerConnectionSchema, params: serverId,
    handler: async ({ principal, params, services }) => serverConnectionOut(await services.servers.testConnection(principal, params.server_id)),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/preview-pull", operationId: "previewServerPull", tag: "servers",
    summary: "The remote events the next pull would take (its events/index with the pull rules applied, from the cursor on), without writing anything; 503 when the remote fails",
    scopes: ["servers:read"], status: 200, response: ServerPreviewSchema, params: serverId, body: previewWire.object,
    handler: async ({ principal, params, body, services }) => serverPreviewOut(await services.servers.previewPull(principal, params.server_id, previewWire.fromWire(body))),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/pull", operationId: "pullServer", tag: "servers",
    summary: "Pull now, as you (servers:pull with events:create and events:sync): a task run (server_pull) taking every remote event the rules take that is newer than the cursor, resumable; GET /tasks/{task_id} shows its progress and counts",
    scopes: ["servers:pull"], status: 202, response: ServerSyncStartedSchema, params: serverId,
    handler: async ({ principal, params, services }) => syncStartedOut(taskRunOut(await services.servers.pull(principal, params.server_id))),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/events/{event_uuid}/pull", operationId: "pullServerEvent", tag: "servers",
    summary: "Pull one remote event by uuid now (whatever the rules say; stored only when newer than the copy here); 404 when the remote does not show it",
    scopes: ["servers:pull"], status: 200, response: ServerPullResultSchema, params: eventParams,
    handler: async ({ principal, params, services }) => pullResultOut(await services.servers.pullEvent(principal, params.server_id, params.event_uuid)),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/push", operationId: "pushServer", tag: "servers",
    summary: "Push now, as you (servers:push with events:read): a task run (server_push) sending the organisation's events the push rules take, never distribution 0 nor a sharing group the remote organisation is not in, distributions capped",
    scopes: ["servers:push"], status: 202, response: ServerSyncStartedSchema, params: serverId,
    handler: async ({ principal, params, services }) => syncStartedOut(taskRunOut(await services.servers.push(principal, params.server_id))),
  }),
  defineRoute({
    method: "POST", path: "/servers/{server_id}/events/{event_uuid}/push", operationId: "pushServerEvent", tag: "servers",
    summary: "Push one of the organisation's events now, as the push rules and its distribution allow (events/add, or events/edit when the remote holds an older version)",
    scopes: ["servers:push"], status: 200, response: ServerPushResultSchema, params: eventParams,
    handler: async ({ principal, params, services }) => pushResultOut(await services.servers.pushEvent(principal, params.server_id, params.event_uuid)),
  }),
];
