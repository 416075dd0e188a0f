/**
 * Composite MISP attribute types (`left|right`, e.g. `filename|sha256`).
 *
 * Which types are composite comes from describeTypes.json (any type whose
 * name contains `|`). Each half gets a real MISP type:
 *   filename|<hash>  -> filename + <hash>        (e.g. filename|sha512/256 -> sha512/256)
 *   ip-src|port      -> ip-src + port            ip-dst|port -> ip-dst + port
 *   hostname|port    -> hostname + port
 *   domain|ip        -> domain + ip-dst          (MISP has no plain "ip" type)
 *   regkey|value     -> regkey + text            (registry value data is free text)
 *
 * Split rule (deliberate): the value is split on the LAST `|`, except for
 * `regkey|value`, which is split on the FIRST `|`. Rationale: in every other
 * composite the right half (hash, port, IP) can never contain `|`, while the
 * left half may (a POSIX filename can), so the last `|` is the only safe
 * boundary - it also matches MISP's own check `^.+\|[0-9a-f]{N}$`. For
 * `regkey|value` the opposite holds: registry value data is arbitrary text and
 * may contain `|`, key paths practically never do.
 *
 * `ip-src|port` / `ip-dst|port` also accept the alternative spellings MISP
 * accepts (`1.2.3.4:80`, `[::1]:80`, `2001:db8::1 port 80`, ...), and
 * `hostname|port` accepts `host:80`; see ip.ts#splitIpPort.
 *
 * The halves are returned raw (brackets around an IPv6 address removed, no
 * other trimming or normalisation); validate-value.ts validates/normalises them.
 */
import { getAttributeCatalogue } from './catalogue.ts';
import { splitIpPort } from './ip.ts';

export interface CompositePart {
  type: string;
  value: string;
}

/** Right-half type names that differ from the text after `|` in the composite name. */
const RIGHT_TYPE_OVERRIDES: Readonly<Record<string, string>> = {
  'domain|ip': 'ip-dst',
  'regkey|value': 'text',
};

/** Composite types split on the first `|` (all others: last `|`). */
const SPLIT_ON_FIRST_PIPE: ReadonlySet<string> = new Set(['regkey|value']);

export function isCompositeType(type: string): boolean {
  return getAttributeCatalogue().types.get(type)?.composite ?? false;
}

/** The two component types of a composite type, e.g. `domain|ip` -> ['domain', 'ip-dst']. */
export function compositePartTypes(type: string): [string, string] {
  if (!isCompositeType(type)) throw new TypeError(`"${type}" is not a composite attribute type`);
  const i = type.indexOf('|');
  return [type.slice(0, i), RIGHT_TYPE_OVERRIDES[type] ?? type.slice(i + 1)];
}

/**
 * Split a composite value into its two typed halves.
 * Throws TypeError when `type` is not a composite type; returns null when the
 * value has no separator it can be split on.
 */
export function splitComposite(type: string, value: string): [CompositePart, CompositePart] | null {
  const [leftType, rightType] = compositePartTypes(type);
  let pair: [string, string] | null;
  if (type === 'ip-src|port' || type === 'ip-dst|port') {
    pair = splitIpPort(value);
  } else {
    const pipe = SPLIT_ON_FIRST_PIPE.has(type) ? value.indexOf('|') : value.lastIndexOf('|');
    if (pipe >= 0) pair = [value.slice(0, pipe), value.slice(pipe + 1)];
    else if (type === 'hostname|port' && value.includes(':')) {
      const colon = value.lastIndexOf(':');
      pair = [value.slice(0, colon), value.slice(colon + 1)];
    } else pair = null;
  }
  if (pair === null) return null;
  return [
    { type: leftType, value: pair[0] },
    { type: rightType, value: pair[1] },
  ];
}
