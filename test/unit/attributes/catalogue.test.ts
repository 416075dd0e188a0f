import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildAttributeCatalogue,
  defaultCategoryFor,
  defaultToIdsFor,
  getAttributeCatalogue,
  isKnownCategory,
  isKnownType,
  isValidCategoryForType,
  VENDORED_DESCRIBE_TYPES_PATH,
  sharedDescribeTypesPath,
} from '../../../src/modules/attributes/catalogue/index.ts';
import { syncDescribeTypes } from '../../../src/modules/attributes/catalogue/sync-describe-types.ts';

interface DescribeTypes {
  result: {
    sane_defaults: Record<string, { default_category: string; to_ids: number }>;
    types: string[];
    categories: string[];
    category_type_mappings: Record<string, string[]>;
  };
}

const SHARED = sharedDescribeTypesPath();
const haveShared = existsSync(SHARED);
// The upstream file when available, else the vendored copy (the catalogue's own source).
const describe_: DescribeTypes['result'] = (
  JSON.parse(readFileSync(haveShared ? SHARED : VENDORED_DESCRIBE_TYPES_PATH, 'utf8')) as DescribeTypes
).result;

describe('vendored describeTypes.json', () => {
  it.skipIf(!haveShared)('is byte-for-byte identical to the shared copy (run sync-describe-types.ts)', () => {
    expect(readFileSync(VENDORED_DESCRIBE_TYPES_PATH).equals(readFileSync(SHARED))).toBe(true);
  });

  it.skipIf(!haveShared)('sync script --check reports it up to date', () => {
    const r = syncDescribeTypes({ check: true });
    expect(r.upToDate).toBe(true);
    expect(r.target).toBe(VENDORED_DESCRIBE_TYPES_PATH);
  });

  it('is what the catalogue loads, once (cached)', () => {
    const a = getAttributeCatalogue();
    expect(a.source).toBe(VENDORED_DESCRIBE_TYPES_PATH);
    expect(getAttributeCatalogue()).toBe(a);
  });
});

describe('attribute catalogue', () => {
  const cat = getAttributeCatalogue();

  it('knows every type in describeTypes, in order, and nothing else', () => {
    expect(describe_.types.length).toBeGreaterThan(150);
    expect(cat.typeNames).toEqual(describe_.types);
    for (const t of describe_.types) expect(isKnownType(t), t).toBe(true);
    expect(cat.types.size).toBe(describe_.types.length);
  });

  it('knows every category and maps category -> types exactly', () => {
    expect(cat.categories).toEqual(describe_.categories);
    for (const c of describe_.categories) {
      expect(isKnownCategory(c), c).toBe(true);
      expect(cat.categoryTypes.get(c)).toEqual(describe_.category_type_mappings[c]);
      for (const t of describe_.category_type_mappings[c]) {
        expect(isValidCategoryForType(t, c), `${t} in ${c}`).toBe(true);
        expect(cat.types.get(t)?.categories).toContain(c);
      }
    }
  });

  it('rejects type/category pairs not in the mappings', () => {
    let checked = 0;
    for (const t of describe_.types) {
      for (const c of describe_.categories) {
        const expected = describe_.category_type_mappings[c].includes(t);
        expect(isValidCategoryForType(t, c), `${t} in ${c}`).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBe(describe_.types.length * describe_.categories.length);
    expect(isValidCategoryForType('md5', 'Financial fraud')).toBe(false);
    expect(isValidCategoryForType('btc', 'Financial fraud')).toBe(true);
    expect(isValidCategoryForType('md5', 'No such category')).toBe(false);
    expect(isValidCategoryForType('no-such-type', 'Payload delivery')).toBe(false);
  });

  it('takes default category and to_ids from sane_defaults', () => {
    for (const t of describe_.types) {
      const d = describe_.sane_defaults[t];
      expect(defaultCategoryFor(t), t).toBe(d.default_category);
      expect(defaultToIdsFor(t), t).toBe(d.to_ids === 1);
      // the default category is always one the type may be used in
      expect(isValidCategoryForType(t, d.default_category), t).toBe(true);
    }
    expect(defaultCategoryFor('md5')).toBe('Payload delivery');
    expect(defaultToIdsFor('md5')).toBe(true);
    expect(defaultCategoryFor('ip-dst')).toBe('Network activity');
    expect(defaultToIdsFor('ip-dst')).toBe(true);
    expect(defaultCategoryFor('comment')).toBe('Other');
    expect(defaultToIdsFor('comment')).toBe(false);
    expect(defaultToIdsFor('link')).toBe(false);
  });

  it('returns undefined / false for unknown names', () => {
    expect(isKnownType('MD5')).toBe(false);
    expect(isKnownType('')).toBe(false);
    expect(isKnownCategory('network activity')).toBe(false);
    expect(defaultCategoryFor('nope')).toBeUndefined();
    expect(defaultToIdsFor('nope')).toBeUndefined();
  });

  it('lists composite types', () => {
    expect(cat.compositeTypes).toEqual(describe_.types.filter((t) => t.includes('|')));
    expect(cat.compositeTypes).toContain('filename|sha256');
    expect(cat.types.get('ip-dst|port')?.composite).toBe(true);
    expect(cat.types.get('ip-dst')?.composite).toBe(false);
  });

  it('buildAttributeCatalogue rejects malformed documents', () => {
    expect(() => buildAttributeCatalogue('not json')).toThrow(/invalid JSON/);
    expect(() => buildAttributeCatalogue('{}')).toThrow(/result/);
    const doc = (over: object) =>
      JSON.stringify({
        result: {
          types: ['md5'],
          categories: ['A'],
          category_type_mappings: { A: ['md5'] },
          sane_defaults: { md5: { default_category: 'A', to_ids: 1 } },
          ...over,
        },
      });
    expect(buildAttributeCatalogue(doc({})).types.get('md5')?.toIds).toBe(true);
    expect(() => buildAttributeCatalogue(doc({ category_type_mappings: { A: ['sha1'] } }))).toThrow(/unknown type "sha1"/);
    expect(() => buildAttributeCatalogue(doc({ sane_defaults: {} }))).toThrow(/sane_defaults/);
  });
});
