/**
 * MISP attribute type / category catalogue.
 *
 * Loaded as data (never hand-copied) from MISP's describeTypes.json: by default
 * the vendored copy next to this file (kept identical to the shared upstream
 * copy by sync-describe-types.ts and a unit test). The JSON is read and parsed
 * once, lazily, on first use, and cached.
 */
import { readFileSync } from 'node:fs';
import { VENDORED_DESCRIBE_TYPES_PATH } from './paths.ts';

export interface AttributeTypeInfo {
  readonly name: string;
  /** `sane_defaults[type].default_category` */
  readonly defaultCategory: string;
  /** `sane_defaults[type].to_ids` as a boolean */
  readonly toIds: boolean;
  /** categories whose `category_type_mappings` list this type, in describeTypes order */
  readonly categories: readonly string[];
  /** true for `left|right` types such as `filename|sha256` */
  readonly composite: boolean;
}

export interface AttributeCatalogue {
  /** Type names in describeTypes order. */
  readonly typeNames: readonly string[];
  /** Type name → info. */
  readonly types: ReadonlyMap<string, AttributeTypeInfo>;
  /** Category names in describeTypes order. */
  readonly categories: readonly string[];
  /** Category → types allowed in it (`category_type_mappings`). */
  readonly categoryTypes: ReadonlyMap<string, readonly string[]>;
  /** Composite type names (`a|b`), in describeTypes order. */
  readonly compositeTypes: readonly string[];
  /** File the catalogue was loaded from. */
  readonly source: string;
}

interface DescribeTypesResult {
  sane_defaults: Record<string, { default_category: string; to_ids: number | boolean }>;
  types: string[];
  categories: string[];
  category_type_mappings: Record<string, string[]>;
}

function fail(source: string, msg: string): never {
  throw new Error(`attribute catalogue: ${source}: ${msg}`);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Parse + check describeTypes.json text and build the catalogue. Exported for tests. */
export function buildAttributeCatalogue(jsonText: string, source = '<memory>'): AttributeCatalogue {
  let doc: unknown;
  try {
    doc = JSON.parse(jsonText);
  } catch (err) {
    fail(source, `invalid JSON (${(err as Error).message})`);
  }
  const r = (doc as { result?: unknown } | null)?.result as Partial<DescribeTypesResult> | undefined;
  if (!r || typeof r !== 'object') fail(source, 'missing "result" object');
  if (!isStringArray(r.types)) fail(source, 'result.types must be an array of strings');
  if (!isStringArray(r.categories)) fail(source, 'result.categories must be an array of strings');
  const mappings = r.category_type_mappings;
  const defaults = r.sane_defaults;
  if (!mappings || typeof mappings !== 'object') fail(source, 'missing result.category_type_mappings');
  if (!defaults || typeof defaults !== 'object') fail(source, 'missing result.sane_defaults');

  const typeSet = new Set(r.types);
  const categoryTypes = new Map<string, readonly string[]>();
  const categoriesOfType = new Map<string, string[]>();
  for (const category of r.categories) {
    const list = mappings[category];
    if (!isStringArray(list)) fail(source, `category_type_mappings["${category}"] must be an array of strings`);
    for (const t of list) {
      if (!typeSet.has(t)) fail(source, `category "${category}" maps unknown type "${t}"`);
      const cats = categoriesOfType.get(t) ?? [];
      cats.push(category);
      categoriesOfType.set(t, cats);
    }
    categoryTypes.set(category, Object.freeze([...list]));
  }
  for (const category of Object.keys(mappings)) {
    if (!categoryTypes.has(category)) fail(source, `category_type_mappings has unlisted category "${category}"`);
  }

  const types = new Map<string, AttributeTypeInfo>();
  for (const name of r.types) {
    const d = defaults[name];
    if (!d || typeof d.default_category !== 'string') fail(source, `no sane_defaults for type "${name}"`);
    types.set(
      name,
      Object.freeze({
        name,
        defaultCategory: d.default_category,
        toIds: Boolean(Number(d.to_ids)),
        categories: Object.freeze(categoriesOfType.get(name) ?? []),
        composite: name.includes('|'),
      }),
    );
  }

  return Object.freeze({
    typeNames: Object.freeze([...r.types]),
    types,
    categories: Object.freeze([...r.categories]),
    categoryTypes,
    compositeTypes: Object.freeze(r.types.filter((t) => t.includes('|'))),
    source,
  });
}

let cached: AttributeCatalogue | undefined;

/** The catalogue, loaded from the vendored describeTypes.json on first call and cached. */
export function getAttributeCatalogue(): AttributeCatalogue {
  if (cached === undefined) {
    const path = VENDORED_DESCRIBE_TYPES_PATH;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      fail(path, `cannot read (${(err as Error).message}); run sync-describe-types.ts`);
    }
    cached = buildAttributeCatalogue(text, path);
  }
  return cached;
}

export function isKnownType(type: string): boolean {
  return getAttributeCatalogue().types.has(type);
}

export function isKnownCategory(category: string): boolean {
  return getAttributeCatalogue().categoryTypes.has(category);
}

/** Is `type` allowed in `category` per `category_type_mappings`? (false for unknown type or category) */
export function isValidCategoryForType(type: string, category: string): boolean {
  return getAttributeCatalogue().types.get(type)?.categories.includes(category) ?? false;
}

/** `sane_defaults[type].default_category`, or undefined for an unknown type. */
export function defaultCategoryFor(type: string): string | undefined {
  return getAttributeCatalogue().types.get(type)?.defaultCategory;
}

/** `sane_defaults[type].to_ids` as a boolean, or undefined for an unknown type. */
export function defaultToIdsFor(type: string): boolean | undefined {
  return getAttributeCatalogue().types.get(type)?.toIds;
}
