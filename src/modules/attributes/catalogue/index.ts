export {
  getAttributeCatalogue,
  buildAttributeCatalogue,
  isKnownType,
  isKnownCategory,
  isValidCategoryForType,
  defaultCategoryFor,
  defaultToIdsFor,
} from './catalogue.ts';
export type { AttributeCatalogue, AttributeTypeInfo } from './catalogue.ts';

export { isCompositeType, compositePartTypes, splitComposite } from './composite.ts';
export type { CompositePart } from './composite.ts';

export { validateAttributeValue, MAX_VALUE_LENGTH } from './validate-value.ts';
export type { ValidationResult } from './validate-value.ts';

export { VENDORED_DESCRIBE_TYPES_PATH, sharedDataDir, sharedDescribeTypesPath } from './paths.ts';
