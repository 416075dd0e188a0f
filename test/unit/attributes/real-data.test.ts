/**
 * Every attribute value in the shared real MISP data (PyMISP test events and a
 * sample of the Infoblox MISP feed) must validate: Event.Attribute[] and
 * Event.Object[].Attribute[] (two PyMISP files are bare events without the
 * "Event" wrapper; they are read the same way).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isKnownType,
  isValidCategoryForType,
  sharedDataDir,
  validateAttributeValue,
} from '../../../src/modules/attributes/catalogue/index.ts';

interface RawAttribute {
  type: string;
  category: string;
  value: string;
}
interface RawEvent {
  Attribute?: RawAttribute[];
  Object?: { Attribute?: RawAttribute[] }[];
}

const DIRS = ['misp-events', 'misp-feed-sample'];

/**
 * Real values that are genuinely invalid for their declared type, so they are
 * expected to FAIL (and the test fails if one starts passing or disappears).
 */
const KNOWN_INVALID: { file: string; type: string; value: string; why: string }[] = [
  {
    file: 'misp-feed-sample/68f58844-4aa6-4e1c-8ee5-cfb58eb6665e.json',
    type: 'filename|sha256',
    value: 't1fde0f101c9395f39ecd16430b41041a59107c73c904087309fb8d0e8d87e0077129f3f',
    why: 'a bare TLSH digest (T1 + 70 hex) filed as filename|sha256: no filename, no "|", not a sha256',
  },
];

interface Row {
  file: string;
  attr: RawAttribute;
}

function loadRows(): Row[] {
  const rows: Row[] = [];
  for (const dir of DIRS) {
    for (const name of readdirSync(join(sharedDataDir(), dir)).sort()) {
      if (!name.endsWith('.json') || name === 'manifest.json') continue;
      const file = `${dir}/${name}`;
      const doc = JSON.parse(readFileSync(join(sharedDataDir(), file), 'utf8')) as { Event?: RawEvent } & RawEvent;
      const event = doc.Event ?? doc;
      const attrs = [...(event.Attribute ?? []), ...(event.Object ?? []).flatMap((o) => o.Attribute ?? [])];
      expect(attrs.length, `${file} has attributes`).toBeGreaterThan(0);
      for (const attr of attrs) rows.push({ file, attr });
    }
  }
  return rows;
}

const haveData = DIRS.every((d) => existsSync(join(sharedDataDir(), d)));

describe.skipIf(!haveData)('real MISP data (../shared/data)', () => {
  const rows = haveData ? loadRows() : [];
  const isKnownInvalid = (r: Row) =>
    KNOWN_INVALID.some((k) => k.file === r.file && k.type === r.attr.type && k.value === r.attr.value);

  it('is loaded (both event sets, objects included)', () => {
    expect(rows.length).toBeGreaterThan(9000);
    expect(new Set(rows.map((r) => r.file.split('/')[0]))).toEqual(new Set(DIRS));
  });

  it('uses only known types, in categories allowed for them', () => {
    const bad = rows.filter((r) => !isKnownType(r.attr.type) || !isValidCategoryForType(r.attr.type, r.attr.category));
    expect(bad.map((r) => `${r.file}: ${r.attr.type} / ${r.attr.category}`)).toEqual([]);
  });

  it('every attribute value validates', () => {
    const failures = rows
      .filter((r) => !isKnownInvalid(r))
      .map((r) => ({ r, res: validateAttributeValue(r.attr.type, r.attr.value) }))
      .filter(({ res }) => !res.ok)
      .map(({ r, res }) => `${r.file}: ${r.attr.type} ${JSON.stringify(r.attr.value)} -> ${res.ok ? '' : res.reason}`);
    expect(failures).toEqual([]);
  });

  it('normalised real values are stable (validating the normalised form is a no-op)', () => {
    for (const r of rows.filter((x) => !isKnownInvalid(x))) {
      const first = validateAttributeValue(r.attr.type, r.attr.value);
      if (!first.ok) continue;
      const again = validateAttributeValue(r.attr.type, first.normalized);
      expect(again, `${r.attr.type} ${r.attr.value}`).toEqual(first);
    }
  });

  it.each(KNOWN_INVALID)('rejects the genuinely invalid real value in $file ($type)', (k) => {
    expect(rows.some((r) => r.file === k.file && r.attr.type === k.type && r.attr.value === k.value)).toBe(true);
    const res = validateAttributeValue(k.type, k.value);
    expect(res.ok).toBe(false);
  });
});
