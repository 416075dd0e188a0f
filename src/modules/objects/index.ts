/** The objects area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export type { ObjectView, ReferenceView } from "./object-reader.ts";
export { ObjectsService } from "./objects.service.ts";
export {
  attributeUpdateInObjectContract,
  objectCreateContract,
  objectFieldsContract,
  objectPatchContract,
  referenceCreateContract,
} from "./objects.contracts.ts";
export type { ObjectCreate, ObjectFields, ObjectPatch, ReferenceCreate } from "./objects.contracts.ts";
