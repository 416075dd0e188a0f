import { describe, expect, it } from 'vitest';
import {
  compositePartTypes,
  getAttributeCatalogue,
  isCompositeType,
  isKnownType,
  splitComposite,
} from '../../../src/modules/attributes/catalogue/index.ts';

const H64 = 'afd0eae5065a689f8fc48c0cfc5b87f4caecc2fb6b1cef4c5e977fc2cc98509d';

describe('isCompositeType', () => {
  it('is true exactly for the describeTypes types containing "|"', () => {
    const cat = getAttributeCatalogue();
    expect(cat.compositeTypes.length).toBeGreaterThanOrEqual(20);
    for (const t of cat.typeNames) expect(isCompositeType(t), t).toBe(t.includes('|'));
    expect(isCompositeType('foo|bar')).toBe(false); // unknown type
  });
});

describe('compositePartTypes', () => {
  it('maps every composite type to two known types', () => {
    for (const t of getAttributeCatalogue().compositeTypes) {
      const [l, r] = compositePartTypes(t);
      expect(isKnownType(l), `${t} left ${l}`).toBe(true);
      expect(isKnownType(r), `${t} right ${r}`).toBe(true);
    }
  });
  it.each([
    ['filename|sha256', 'filename', 'sha256'],
    ['filename|sha512/256', 'filename', 'sha512/256'],
    ['filename|ssdeep', 'filename', 'ssdeep'],
    ['ip-dst|port', 'ip-dst', 'port'],
    ['ip-src|port', 'ip-src', 'port'],
    ['hostname|port', 'hostname', 'port'],
    ['domain|ip', 'domain', 'ip-dst'],
    ['regkey|value', 'regkey', 'text'],
  ])('%s -> %s + %s', (t, l, r) => {
    expect(compositePartTypes(t)).toEqual([l, r]);
  });
  it('throws for non-composite types', () => {
    expect(() => compositePartTypes('md5')).toThrow(TypeError);
    expect(() => splitComposite('ip-dst', '1.2.3.4|80')).toThrow(TypeError);
  });
});

describe('splitComposite', () => {
  const split = (t: string, v: string) => splitComposite(t, v)?.map((p) => [p.type, p.value]);

  it('splits every composite type on a simple a|b value', () => {
    for (const t of getAttributeCatalogue().compositeTypes) {
      const parts = splitComposite(t, 'left|right');
      expect(parts, t).not.toBeNull();
      expect(parts!.map((p) => p.value)).toEqual(['left', 'right']);
      expect(parts!.map((p) => p.type)).toEqual(compositePartTypes(t));
    }
  });

  it('splits the common composites', () => {
    expect(split('filename|sha256', `90t69cf82.dll|${H64}`)).toEqual([['filename', '90t69cf82.dll'], ['sha256', H64]]);
    expect(split('ip-dst|port', '125.212.132.222|443')).toEqual([['ip-dst', '125.212.132.222'], ['port', '443']]);
    expect(split('domain|ip', 'example.com|192.0.2.1')).toEqual([['domain', 'example.com'], ['ip-dst', '192.0.2.1']]);
    expect(split('hostname|port', 'mail.example.com|25')).toEqual([['hostname', 'mail.example.com'], ['port', '25']]);
    expect(split('regkey|value', 'HKLM\\Software\\Run|%TEMP%\\a.exe')).toEqual([
      ['regkey', 'HKLM\\Software\\Run'],
      ['text', '%TEMP%\\a.exe'],
    ]);
  });

  it('splits filename|<hash> on the LAST "|" (filenames may contain "|")', () => {
    expect(split('filename|md5', 'a|b.exe|d41d8cd98f00b204e9800998ecf8427e')).toEqual([
      ['filename', 'a|b.exe'],
      ['md5', 'd41d8cd98f00b204e9800998ecf8427e'],
    ]);
  });

  it('splits regkey|value on the FIRST "|" (data may contain "|")', () => {
    expect(split('regkey|value', 'HKCU\\Run|cmd /c a | b')).toEqual([
      ['regkey', 'HKCU\\Run'],
      ['text', 'cmd /c a | b'],
    ]);
  });

  it.each([
    ['[::1]:80', '::1', '80'],
    ['[2001:db8::1]:443', '2001:db8::1', '443'],
    ['2001:db8::1|443', '2001:db8::1', '443'],
    ['[2001:db8::1]|443', '2001:db8::1', '443'],
    ['2001:db8::1.443', '2001:db8::1', '443'],
    ['2001:db8::1 port 443', '2001:db8::1', '443'],
    ['2001:db8::1p443', '2001:db8::1', '443'],
    ['2001:db8::1#443', '2001:db8::1', '443'],
    ['2001:db8::1:443', '2001:db8::1', '443'],
    ['::ffff:192.0.2.1.8080', '::ffff:192.0.2.1', '8080'],
    ['192.0.2.1:8080', '192.0.2.1', '8080'],
    ['192.0.2.1|8080', '192.0.2.1', '8080'],
  ])('ip|port form %s', (value, ip, port) => {
    expect(split('ip-dst|port', value)).toEqual([['ip-dst', ip], ['port', port]]);
    expect(split('ip-src|port', value)).toEqual([['ip-src', ip], ['port', port]]);
  });

  it('accepts host:port for hostname|port', () => {
    expect(split('hostname|port', 'example.com:8080')).toEqual([['hostname', 'example.com'], ['port', '8080']]);
  });

  it('returns null when there is nothing to split on', () => {
    expect(splitComposite('filename|sha256', 't1fde0f101c9395f39ecd16430b41041a59107c73c904087309fb8d0e8d87e0077129f3f')).toBeNull();
    expect(splitComposite('ip-dst|port', '192.0.2.1')).toBeNull();
    expect(splitComposite('ip-dst|port', '[::1]80')).toBeNull();
    expect(splitComposite('domain|ip', 'example.com')).toBeNull();
  });
});
