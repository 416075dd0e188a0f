/** STIX 2.1 export of search documents (issue 21): the streaming writer and the pure mappings it is made of. */
export { stixBundle, StixBundleWriter, OBSERVABLE_WINDOW, type StixExportOptions, type StixInput, type StixWriterStats } from "./bundle-writer.ts";
export { mapAttribute, reportId, type AttributeContext, type IndicatorPolicy, type MappedAttribute } from "./attribute-objects.ts";
export { buildReport, identityOf, reportHeader, type ReportContext, type ReportHeader } from "./event-objects.ts";
export { attributeFacts, fullHiveKey, ipType, type AttributeFacts } from "./attribute-values.ts";
export { attributePattern, factsPattern, patternString, type StixPattern } from "./patterns.ts";
export { attributeObservables } from "./observables.ts";
export { attackPatternOfTag, attackPatternsOfTags, markingsOfTags, tlpMarking, TLP2_EXTENSION } from "./tags.ts";
export { isValidStixPattern, parseStixPattern, PatternSyntaxError, type ParsedPattern, type PatternComparison, type PatternLiteral } from "./pattern-syntax.ts";
export { readAttributeSource, readEventSource, type AttributeSource, type EventSource, type Organisation } from "./source-documents.ts";
export { canonicalJson, derivedUuid, entityUuid, EXPORT_NAMESPACE, observableId, SCO_NAMESPACE, uuidV5 } from "./ids.ts";
export { IdList } from "./id-list.ts";
export { stixTime, TIMELESS } from "./time.ts";
export type * from "./types.ts";
