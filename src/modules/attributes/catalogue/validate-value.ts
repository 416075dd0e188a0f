/**
 * MISP attribute value validation and normalisation.
 *
 * Modelled on the behaviour of MISP's AttributeValidationTool
 * (modifyBeforeValidation + validate), own implementation. Notable choices:
 *
 * - Every value is trimmed (leading/trailing whitespace) first; then, for every
 *   type: must be non-empty, must not contain NUL, length <= 131 072.
 * - Unknown types (not in describeTypes.json) are rejected.
 * - Hex hashes / fingerprints are lowercased (x509 fingerprints also lose `:`);
 *   `hex` is uppercased (as MISP does).
 * - ssdeep: embedded CR/LF (a line-wrapped digest) are removed before checking;
 *   an ssdeep digest never contains them.
 * - domain/hostname: lowercased, one trailing dot removed, IDN converted to
 *   punycode; labels 1-63 of [a-z0-9_-] (underscore tolerated as in MISP, no
 *   leading/trailing hyphen), at least two labels, non-numeric TLD >= 2 chars,
 *   total <= 253. Existing ASCII `xn--` labels are not punycode-decoded/checked.
 * - email, email-src, email-dst, target-email, whois-registrant-email:
 *   lowercased (as MISP does), `local@domain` with the domain checked as above
 *   (or an `[ip]` literal).
 * - ip-src/ip-dst: IPv4 (strict octets, no leading zeros), IPv6 (RFC 5952
 *   canonical output), CIDR; `/32` and `/128` collapse to the bare address.
 * - port (and the port half of composites): 0-65535, leading zeros dropped.
 * - AS: `AS1234`, `as 1234`, `1234`, asdot `1.10`; normalised to the bare
 *   number (`1234`, `65546`), 0..4294967295.
 * - vulnerability / weakness: dashes normalised, uppercased (`CVE-2021-44228`, `CWE-79`).
 * - datetime: ISO 8601 date or date-time (`T` or space, optional seconds,
 *   fraction and Z/offset; no offset = UTC), normalised to MISP's stored form
 *   `YYYY-MM-DDTHH:MM:SS.ffffff+HHMM`. Free-form strings MISP's strtotime would
 *   take (`yesterday`) are rejected.
 * - url/uri: no whitespace or control characters (defanged `hxxp[:]//` is fine).
 *   link: the same plus a URI scheme (`https:`), as MISP requires one.
 * - Composite types: split per composite.ts, each half validated as its own type
 *   (the IP half of ip|port and domain|ip must be a single address, not CIDR;
 *   the regkey|value data half may be empty), re-joined with `|`.
 * - Anything without a specific rule: the generic checks only; MISP's
 *   "no new line" types additionally reject CR/LF.
 */
import { domainToASCII } from 'node:url';
import { isKnownType } from './catalogue.ts';
import { compositePartTypes, isCompositeType, splitComposite } from './composite.ts';
import { parseIp, parseIpOrCidr, parsePort } from './ip.ts';
import { unsafeTextReason } from '../../../platform/unsafe-text.ts';

export type ValidationResult = { ok: true; normalized: string } | { ok: false; reason: string };

export const MAX_VALUE_LENGTH = 131_072;

type Check = (v: string) => ValidationResult;

const pass = (normalized: string): ValidationResult => ({ ok: true, normalized });
const fail = (reason: string): ValidationResult => ({ ok: false, reason });

// ---------------------------------------------------------------- hashes

const HEX_LENGTHS: Readonly<Record<string, readonly number[]>> = {
  md5: [32],
  sha1: [40],
  sha224: [56],
  sha256: [64],
  sha384: [96],
  sha512: [128],
  'sha512/224': [56],
  'sha512/256': [64],
  'sha3-224': [56],
  'sha3-256': [64],
  'sha3-384': [96],
  'sha3-512': [128],
  imphash: [32],
  authentihash: [64],
  pehash: [40],
  'ja3-fingerprint-md5': [32],
  'jarm-fingerprint': [62],
  'hassh-md5': [32],
  'hasshserver-md5': [32],
  'dom-hash': [32],
  'git-commit-id': [40, 64],
  'x509-fingerprint-md5': [32],
  'x509-fingerprint-sha1': [40],
  'x509-fingerprint-sha256': [64],
};

function hexOfLength(lengths: readonly number[], stripColons = false): Check {
  const expected = lengths.join(' or ');
  return (raw) => {
    const v = (stripColons ? raw.replaceAll(':', '') : raw).toLowerCase();
    if (!/^[0-9a-f]+$/.test(v)) return fail(`expected ${expected} hexadecimal characters (found non-hex characters)`);
    if (!lengths.includes(v.length)) return fail(`expected ${expected} hexadecimal characters, got ${v.length}`);
    return pass(v);
  };
}

const FUZZY_RE = /^\d+:[0-9A-Za-z/+]*:[0-9A-Za-z/+]*$/;

const checkSsdeep: Check = (raw) => {
  const v = raw.replace(/[\r\n]+/g, '');
  return FUZZY_RE.test(v) ? pass(v) : fail('expected blocksize:hash:hash');
};

const checkImpfuzzy: Check = (v) => (FUZZY_RE.test(v) ? pass(v) : fail('expected imports:hash:hash'));

const checkTlsh: Check = (raw) => {
  const v = raw.toLowerCase();
  return /^(t1)?[0-9a-f]{35,}$/.test(v)
    ? pass(v)
    : fail('expected at least 35 hexadecimal characters, optionally prefixed with "T1"');
};

const checkTelfhash: Check = (raw) => {
  const v = raw.toLowerCase();
  return /^(t1)?[0-9a-f]{70}$/.test(v) ? pass(v) : fail('expected 70 hexadecimal characters, optionally prefixed with "t1"');
};

const checkCdhash: Check = (raw) => {
  const v = raw.toLowerCase();
  return /^[0-9a-f]{40,}$/.test(v) ? pass(v) : fail('expected 40 or more hexadecimal characters');
};

const checkSshFingerprint: Check = (v) => {
  if (v.startsWith('SHA256:')) {
    const b64 = v.slice(7);
    if (/^[A-Za-z0-9+/]{43}=?$/.test(b64) && Buffer.from(b64, 'base64').length === 32) return pass(v);
    return fail('SHA256 fingerprint must be 32 bytes of base64');
  }
  const hex = (v.startsWith('MD5:') ? v.slice(4) : v).replaceAll(':', '');
  return /^[0-9a-fA-F]{32}$/.test(hex) ? pass(v) : fail('expected an MD5 (hex) or SHA256:base64 fingerprint');
};

// ---------------------------------------------------------------- network

function checkDomainName(raw: string): ValidationResult {
  let d = raw.toLowerCase();
  if (d.endsWith('.')) d = d.slice(0, -1);
  if (d === '') return fail('domain name is empty');
  if (/[^\x00-\x7f]/.test(d)) {
    const ascii = domainToASCII(d);
    if (ascii === '') return fail('invalid internationalised domain name');
    d = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  }
  if (d.length > 253) return fail('domain name longer than 253 characters');
  const labels = d.split('.');
  if (labels.length < 2) return fail('expected at least two labels (e.g. example.com)');
  for (const label of labels) {
    if (label === '') return fail('domain name has an empty label');
    if (label.length > 63) return fail('domain label longer than 63 characters');
    if (!/^[a-z0-9_-]+$/.test(label)) return fail('domain label contains an invalid character');
    if (label.startsWith('-') || label.endsWith('-')) return fail('domain label must not start or end with a hyphen');
  }
  const tld = labels[labels.length - 1];
  if (/^\d+$/.test(tld)) return fail('top-level label must not be numeric');
  if (!/^[a-z0-9-]{2,}$/.test(tld)) return fail('top-level label must be at least 2 letters, digits or hyphens');
  // ASCII `xn--` labels are not IDNA-decoded: DNS serves any LDH label, and real
  // feeds carry names whose xn-- label is not valid punycode (e.g. xn--29s7inly9ib.ub66.com).
  return pass(d);
}

const checkIpOrCidr: Check = (v) => {
  const r = parseIpOrCidr(v);
  return r.ok ? pass(r.value) : fail(r.reason);
};

const checkSingleIp: Check = (v) => {
  const r = parseIp(v);
  return r.ok ? pass(r.value.text) : fail(r.reason);
};

const checkPort: Check = (v) => {
  const r = parsePort(v);
  return r.ok ? pass(r.value) : fail(r.reason);
};

function checkEmailAddress(raw: string): ValidationResult {
  const v = raw.toLowerCase();
  const at = v.lastIndexOf('@');
  if (at <= 0 || at === v.length - 1) return fail('expected local-part@domain');
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  if (/[\s\x00-\x1f\x7f]/.test(local)) return fail('local part must not contain whitespace or control characters');
  if (local.includes('@') && !(local.startsWith('"') && local.endsWith('"'))) {
    return fail('expected exactly one "@"');
  }
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const ip = parseIp(domain.slice(1, -1).replace(/^ipv6:/, ''));
    return ip.ok ? pass(`${local}@[${domain.slice(1, -1)}]`) : fail(`invalid address literal: ${ip.reason}`);
  }
  const d = checkDomainName(domain);
  return d.ok ? pass(`${local}@${d.normalized}`) : fail(`invalid domain: ${d.reason}`);
}

/** MISP's lenient address check for eppn / jabber-id (`x@y.z`, resources allowed). */
const checkLooseAddress: Check = (v) =>
  /^[^\s@]+@[^\s@]+\.\S+$/.test(v) ? pass(v) : fail('expected something like user@example.com');

const WS_OR_CONTROL = /[\s\x00-\x1f\x7f-\x9f]/;

const checkUrl: Check = (v) => (WS_OR_CONTROL.test(v) ? fail('must not contain whitespace or control characters') : pass(v));

const checkLink: Check = (v) => {
  if (WS_OR_CONTROL.test(v)) return fail('must not contain whitespace or control characters');
  if (!/^[a-z][a-z0-9+.-]*:./i.test(v)) return fail('expected a URL with a scheme (e.g. https://...)');
  return pass(v);
};

function macChecker(groups: 6 | 8): Check {
  const hexLen = groups * 2;
  const sep = new RegExp(`^[0-9a-f]{2}([:-])(?:[0-9a-f]{2}\\1){${groups - 2}}[0-9a-f]{2}$`);
  const dotted = new RegExp(`^[0-9a-f]{4}(?:\\.[0-9a-f]{4}){${groups / 2 - 1}}$`);
  const plain = new RegExp(`^[0-9a-f]{${hexLen}}$`);
  return (raw) => {
    const v = raw.toLowerCase();
    if (!sep.test(v) && !dotted.test(v) && !plain.test(v)) {
      return fail(`expected ${groups} hex octets (aa:bb:..., aa-bb-..., aabb.ccdd... or plain hex)`);
    }
    const hex = v.replace(/[^0-9a-f]/g, '');
    return pass(hex.match(/../g)!.join(':'));
  };
}

// ---------------------------------------------------------------- identifiers & numbers

const DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;

const checkCve: Check = (raw) => {
  const v = raw.replace(DASHES, '-').toUpperCase();
  return /^CVE-\d{4}-\d{4,}$/.test(v) ? pass(v) : fail('expected CVE-YYYY-NNNN (4 or more digits)');
};

const checkCwe: Check = (raw) => {
  const v = raw.replace(DASHES, '-').toUpperCase();
  return /^CWE-\d+$/.test(v) ? pass(v) : fail('expected CWE-N');
};

const checkAs: Check = (raw) => {
  const v = raw.replace(/^AS\s?/i, '');
  const dot = /^(\d{1,5})\.(\d{1,5})$/.exec(v);
  if (dot) {
    const hi = Number(dot[1]);
    const lo = Number(dot[2]);
    if (hi > 65535 || lo > 65535) return fail('asdot halves must be 0-65535');
    return pass(String(hi * 65536 + lo));
  }
  if (!/^\d{1,10}$/.test(v)) return fail('expected an AS number such as AS1234 or 1234');
  const n = Number(v);
  if (n > 4294967295) return fail('AS number must be 0-4294967295');
  return pass(String(n));
};

const checkNonNegativeInteger: Check = (v) =>
  /^\d+$/.test(v) ? pass(BigInt(v).toString()) : fail('expected a whole number >= 0');

const checkInteger: Check = (v) => (/^[+-]?\d+$/.test(v) ? pass(BigInt(v).toString()) : fail('expected an integer'));

const checkFloat: Check = (v) =>
  /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v) ? pass(v) : fail('expected a decimal number');

const checkFaviconMmh3: Check = (v) => {
  if (!/^-?\d{1,10}$/.test(v)) return fail('expected a signed 32-bit integer');
  const n = Number(v);
  if (n < -2147483648 || n > 2147483647) return fail('expected a signed 32-bit integer');
  return pass(String(n));
};

const checkBoolean: Check = (raw) => {
  const v = raw.toLowerCase();
  if (v === '1' || v === 'true') return pass('1');
  if (v === '0' || v === 'false') return pass('0');
  return fail('expected 1, 0, true or false');
};

const checkUuid: Check = (raw) => {
  const v = raw.toLowerCase();
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v)
    ? pass(v)
    : fail('expected a UUID (8-4-4-4-12 hex)');
};

const checkHexString: Check = (v) =>
  /^[0-9a-fA-F]+$/.test(v) ? pass(v.toUpperCase()) : fail('expected hexadecimal characters only');

const checkBtc: Check = (v) => {
  if (/^[123mn][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(v)) return pass(v); // base58check (P2PKH/P2SH, testnet)
  const lower = v.toLowerCase();
  if ((v === lower || v === v.toUpperCase()) && /^(bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}$/.test(lower)) {
    return pass(lower); // bech32 / bech32m
  }
  return fail('expected a base58 or bech32 Bitcoin address');
};

const checkAlnum: Check = (v) => (/^[A-Za-z0-9]+$/.test(v) ? pass(v) : fail('expected letters and digits only'));

const checkIban: Check = (raw) => {
  const v = raw.toUpperCase().replace(/[\s-]/g, '');
  return /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(v) ? pass(v) : fail('expected an IBAN (CC99 + account)');
};

const checkBic: Check = (raw) => {
  const v = raw.toUpperCase().replace(/\s/g, '');
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(v) ? pass(v) : fail('expected an 8 or 11 character BIC');
};

function digitsChecker(min: number, max: number, what: string): Check {
  return (raw) => {
    if (!/^[\d\s-]+$/.test(raw)) return fail(`expected ${what}`);
    const v = raw.replace(/[\s-]/g, '');
    return v.length >= min && v.length <= max ? pass(v) : fail(`expected ${what}`);
  };
}

const checkPhone: Check = (raw) => {
  if (!/^\+?[\d\s().\/-]+$/.test(raw)) return fail('expected a phone number (digits, optional +, spaces, dashes, brackets)');
  let v = raw.startsWith('00') ? `+${raw.slice(2)}` : raw;
  v = v.replace('(0)', '').replace(/[^+\d]/g, '');
  return /^\+?\d{3,}$/.test(v) ? pass(v) : fail('expected a phone number with at least 3 digits');
};

const HTTP_METHODS = new Set(
  (
    'OPTIONS GET HEAD POST PUT DELETE TRACE CONNECT PATCH PROPFIND PROPPATCH MKCOL COPY MOVE LOCK UNLOCK ' +
    'VERSION-CONTROL REPORT CHECKOUT CHECKIN UNCHECKOUT MKWORKSPACE UPDATE LABEL MERGE BASELINE-CONTROL ' +
    'MKACTIVITY ORDERPATCH ACL SEARCH'
  ).split(' '),
);

const checkHttpMethod: Check = (raw) => {
  const v = raw.toUpperCase();
  return HTTP_METHODS.has(v) ? pass(v) : fail('unknown HTTP method');
};

const checkOnion: Check = (raw) => {
  const v = raw.toLowerCase().replace(/\.$/, '');
  return /^([a-z0-9-]+\.)*([a-z2-7]{16}|[a-z2-7]{56})\.onion$/.test(v)
    ? pass(v)
    : fail('expected a v2 (16 chars) or v3 (56 chars) base32 .onion name');
};

const checkExtensionId: Check = (raw) => {
  const v = raw.toLowerCase();
  return /^[a-p]{32}$/.test(v) ? pass(v) : fail('expected 32 characters a-p');
};

const checkCpe: Check = (v) =>
  /^cpe:(\/|2\.3:)\S*$/i.test(v) ? pass(v) : fail('expected a CPE name (cpe:2.3:... or cpe:/...)');

const checkWindowsService: Check = (v) => {
  if (v.length > 256) return fail('must be at most 256 characters');
  if (/[\\/]/.test(v)) return fail('must not contain slashes');
  if (/[\r\n]/.test(v)) return fail('must not contain a new line');
  return pass(v);
};

const checkJson: Check = (v) => {
  try {
    JSON.parse(v);
    return pass(v);
  } catch {
    return fail('expected valid JSON');
  }
};

const checkSingleLine: Check = (v) => (/[\r\n]/.test(v) ? fail('must not contain a new line') : pass(v));

const checkLowerSingleLine: Check = (v) => (/[\r\n]/.test(v) ? fail('must not contain a new line') : pass(v.toLowerCase()));

// ---------------------------------------------------------------- datetime

const DATETIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)? ?(?:([Zz]|UTC|GMT)|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const checkDatetime: Check = (v) => {
  const m = DATETIME_RE.exec(v);
  if (!m) return fail('expected an ISO 8601 date or date-time (e.g. 2024-01-31T12:00:00Z)');
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', , sign, oh, om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12) return fail('month out of range');
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return fail('day out of range');
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return fail('time out of range');
  if (sign !== undefined && (Number(oh) > 23 || Number(om) > 59)) return fail('UTC offset out of range');
  const micro = frac.slice(0, 6).padEnd(6, '0');
  const offset = sign === undefined ? '+0000' : `${sign}${oh}${om}`;
  return pass(`${y}-${mo}-${d}T${h}:${mi}:${s}.${micro}${offset}`);
};

// ---------------------------------------------------------------- type table

const CHECKS: Record<string, Check> = {
  ...Object.fromEntries(
    Object.entries(HEX_LENGTHS).map(([t, lengths]) => [t, hexOfLength(lengths, t.startsWith('x509-fingerprint-'))]),
  ),
  ssdeep: checkSsdeep,
  impfuzzy: checkImpfuzzy,
  tlsh: checkTlsh,
  telfhash: checkTelfhash,
  cdhash: checkCdhash,
  vhash: checkLowerSingleLine,
  'ssh-fingerprint': checkSshFingerprint,

  'ip-src': checkIpOrCidr,
  'ip-dst': checkIpOrCidr,
  port: checkPort,
  domain: checkDomainName,
  hostname: checkDomainName,
  'onion-address': checkOnion,
  'mac-address': macChecker(6),
  'mac-eui-64': macChecker(8),

  email: checkEmailAddress,
  'email-src': checkEmailAddress,
  'email-dst': checkEmailAddress,
  'target-email': checkEmailAddress,
  'whois-registrant-email': checkEmailAddress,
  eppn: checkLooseAddress,
  'jabber-id': checkLooseAddress,

  url: checkUrl,
  uri: checkUrl,
  link: checkLink,

  AS: checkAs,
  vulnerability: checkCve,
  weakness: checkCwe,
  'size-in-bytes': checkNonNegativeInteger,
  counter: checkNonNegativeInteger,
  integer: checkInteger,
  float: checkFloat,
  datetime: checkDatetime,
  boolean: checkBoolean,
  uuid: checkUuid,
  hex: checkHexString,
  'favicon-mmh3': checkFaviconMmh3,
  'http-method': checkHttpMethod,
  cpe: checkCpe,
  cortex: checkJson,
  'chrome-extension-id': checkExtensionId,
  'edge-extension-id': checkExtensionId,
  'windows-service-name': checkWindowsService,
  'windows-service-displayname': checkWindowsService,

  btc: checkBtc,
  dash: checkAlnum,
  xmr: checkAlnum,
  iban: checkIban,
  bic: checkBic,
  'cc-number': digitsChecker(8, 19, 'a card number of 8-19 digits'),
  bin: digitsChecker(4, 11, 'a BIN of 4-11 digits'),
  'aba-rtn': digitsChecker(9, 9, 'a 9-digit ABA routing number'),
  'bank-account-nr': digitsChecker(1, 34, 'an account number of digits'),
  'phone-number': checkPhone,
  'whois-registrant-phone': checkPhone,
  prtn: checkPhone,
};

/** MISP's "must not contain a new line" free-text types. */
for (const t of [
  'target-user', 'campaign-name', 'campaign-id', 'threat-actor', 'target-machine', 'target-org',
  'target-location', 'target-external', 'email-subject', 'malware-type', 'user-agent', 'regkey',
  'filename', 'pdb', 'windows-scheduled-task', 'whois-registrant-name', 'whois-registrant-org',
  'whois-registrar', 'whois-creation-date', 'date-of-birth', 'place-of-birth', 'gender',
  'passport-number', 'passport-country', 'passport-expiration', 'redress-number', 'nationality',
  'visa-number', 'issue-date-of-the-visa', 'primary-residence', 'country-of-residence',
  'special-service-request', 'frequent-flyer-number', 'travel-details', 'payment-details',
  'place-port-of-original-embarkation', 'place-port-of-clearance',
  'place-port-of-onward-foreign-destination', 'passenger-name-record-locator-number',
  'email-dst-display-name', 'email-src-display-name', 'email-reply-to', 'email-x-mailer',
  'email-mime-boundary', 'email-thread-index', 'email-message-id', 'github-username',
  'github-repository', 'github-organisation', 'twitter-id', 'mobile-application-id',
  'azure-application-id', 'named pipe', 'dns-soa-email',
]) {
  CHECKS[t] ??= checkSingleLine;
}

/** Per-half overrides inside composites: `${compositeType}:${side}`. */
const PART_CHECKS: Record<string, Check> = {
  'ip-src|port:0': checkSingleIp,
  'ip-dst|port:0': checkSingleIp,
  'domain|ip:1': checkSingleIp,
  'hostname|port:0': checkDomainName,
  'regkey|value:1': (v) => pass(v), // registry data may be empty or multi-line
};

// ---------------------------------------------------------------- entry points

/** Generic checks + the per-type check; reason without the type prefix. */
function checkScalar(type: string, value: string, check: Check | undefined, allowEmpty = false): ValidationResult {
  const v = value.trim();
  if (v === '' && !allowEmpty) return fail('value is empty');
  if (v.includes('\0')) return fail('value contains a NUL byte');
  if (v.length > MAX_VALUE_LENGTH) return fail(`value is longer than ${MAX_VALUE_LENGTH} characters`);
  return (check ?? CHECKS[type] ?? pass)(v);
}

function checkComposite(type: string, value: string): ValidationResult {
  const parts = splitComposite(type, value);
  if (parts === null) {
    const [l, r] = compositePartTypes(type);
    return fail(`expected "${l}|${r}"`);
  }
  const out: string[] = [];
  for (const [side, part] of parts.entries()) {
    const override = PART_CHECKS[`${type}:${side}`];
    const r = checkScalar(part.type, part.value, override, type === 'regkey|value' && side === 1);
    if (!r.ok) return fail(`${part.type} part: ${r.reason}`);
    out.push(r.normalized);
  }
  return pass(out.join('|'));
}

/**
 * Validate and normalise a MISP attribute value for `type`.
 * On failure `reason` is a short message starting with the type, e.g.
 * `ip-dst: IPv4 octet 999 is out of range 0-255`.
 */
export function validateAttributeValue(type: string, value: string): ValidationResult {
  if (typeof value !== 'string') return fail(`${type}: value must be a string`);
  if (!isKnownType(type)) return fail(`unknown attribute type "${type}"`);
  const v = value.trim();
  let r: ValidationResult;
  if (v === '') r = fail('value is empty');
  else if (v.includes('\0')) r = fail('value contains a NUL byte');
  else if (unsafeTextReason(v)) r = fail('value contains an unpaired UTF-16 surrogate');
  else if (v.length > MAX_VALUE_LENGTH) r = fail(`value is longer than ${MAX_VALUE_LENGTH} characters`);
  else r = isCompositeType(type) ? checkComposite(type, v) : checkScalar(type, v, undefined);
  return r.ok ? r : fail(`${type}: ${r.reason}`);
}
