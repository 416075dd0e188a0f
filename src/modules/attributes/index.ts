/** The attributes area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { attributesOfObjects, isDuplicateOf, loadAttribute, lockEvent } from "./attribute-reader.ts";
export type { AttributeView, DuplicateKey, EventRef } from "./attribute-reader.ts";
export { prepareAttributePatch, prepareNewAttribute } from "./attribute-rules.ts";
export type { AttributeRow } from "./attribute-rules.ts";
export { insertAttributes, touchEvent, updateAttributeColumns, withHits } from "./attribute-writer.ts";
export { attributeCreateContract, attributePatchContract } from "./attributes.contracts.ts";
export type { AttributeCreate, AttributePatch } from "./attributes.contracts.ts";
export { AttributesService, attributeDeletedChange, canReadAttribute, writableEvent } from "./attributes.service.ts";
export type { AttributeStatistics } from "./attribute-statistics.ts";
export { getAttributeCatalogue } from "./catalogue/catalogue.ts";
export { MAX_VALUE_LENGTH, defaultCategoryFor, defaultToIdsFor, isCompositeType, isKnownType, isValidCategoryForType, splitComposite, validateAttributeValue } from "./catalogue/index.ts";
export { Issues, checkDate, checkIntRange, checkText, checkUuidField, nowSeconds } from "./input-checks.ts";
export type { Loc } from "./input-checks.ts";
