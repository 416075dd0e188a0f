/** The objects area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export type { ObjectView, ReferenceView } from "./object-reader.ts";
export { ObjectsService } from "./objects.service.ts";
export type { ObjectFields, ReferenceCreate } from "./objects.service.ts";
