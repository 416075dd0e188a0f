import { describe, expect, it } from 'vitest';
import {
  getAttributeCatalogue,
  MAX_VALUE_LENGTH,
  validateAttributeValue,
} from '../../../src/modules/attributes/catalogue/index.ts';

const MD5 = 'fea5902afa6e504a798c73a09b83df5e';
const SHA1 = '0af6bde11eaa699604aa92cce9a6210dfce70f42';
const SHA256 = 'afd0eae5065a689f8fc48c0cfc5b87f4caecc2fb6b1cef4c5e977fc2cc98509d';
const SHA512 =
  '177f25c2e454b5366719a5536e25dbf16ab5cb01b1886b18ea1477671651191cbf663cf1754990c618be1d7c36bf523aaac8528d94a1d49583213dc8a0dee98a';
const TLSH = 't1fde0f101c9395f39ecd16430b41041a59107c73c904087309fb8d0e8d87e0077129f3f';
const hex = (n: number, c = 'a') => c.repeat(n);
/** Test-title form of a value (JSON, truncated). */
const label = (v: string) => (v.length > 80 ? `${JSON.stringify(v.slice(0, 40))}...(${v.length} chars)` : JSON.stringify(v));

/** [type, input, expected normalised value] — real values from the shared MISP data marked (real). */
const GOOD: [string, string, string][] = [
  // hashes (real)
  ['md5', '01784b876d14b1384491318f8fce07d5', '01784b876d14b1384491318f8fce07d5'],
  ['md5', '1216DA2B3D6E64075E8434BE1058DE06', '1216da2b3d6e64075e8434be1058de06'],
  ['md5', `  ${MD5}\n`, MD5],
  ['sha1', '03bc4181fb54af3151cab60406a01a44158e5277', '03bc4181fb54af3151cab60406a01a44158e5277'],
  ['sha256', SHA256.toUpperCase(), SHA256],
  ['sha512', SHA512, SHA512],
  ['sha224', hex(56), hex(56)],
  ['sha384', hex(96, 'B'), hex(96, 'b')],
  ['sha512/224', hex(56), hex(56)],
  ['sha512/256', hex(64), hex(64)],
  ['sha3-224', hex(56), hex(56)],
  ['sha3-256', hex(64), hex(64)],
  ['sha3-384', hex(96), hex(96)],
  ['sha3-512', hex(128), hex(128)],
  ['imphash', MD5, MD5],
  ['authentihash', SHA256, SHA256],
  ['pehash', 'ffb7a38174aab4744cc4a509e34800aee9be8e57', 'ffb7a38174aab4744cc4a509e34800aee9be8e57'],
  ['ja3-fingerprint-md5', '72A589DA586844D7F0818CE684948EEA', '72a589da586844d7f0818ce684948eea'],
  ['hassh-md5', 'ec7378c1a92f5a8dde7e8b7a1ddf33d1', 'ec7378c1a92f5a8dde7e8b7a1ddf33d1'],
  ['hasshserver-md5', 'd43d91bc39d5aaed819ad9f6b57b7348', 'd43d91bc39d5aaed819ad9f6b57b7348'],
  ['jarm-fingerprint', hex(62, '2'), hex(62, '2')],
  ['x509-fingerprint-sha1', 'DA:39:A3:EE:5E:6B:4B:0D:32:55:BF:EF:95:60:18:90:AF:D8:07:09', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
  ['x509-fingerprint-md5', MD5, MD5],
  ['x509-fingerprint-sha256', SHA256, SHA256],
  ['tlsh', TLSH.toUpperCase(), TLSH],
  ['tlsh', TLSH.slice(2), TLSH.slice(2)],
  ['telfhash', `t1${hex(70, 'c')}`, `t1${hex(70, 'c')}`],
  ['cdhash', hex(40, 'd'), hex(40, 'd')],
  ['git-commit-id', hex(40, 'e'), hex(40, 'e')],
  // ssdeep (real), incl. the line-wrapped real value
  [
    'ssdeep',
    '1536:qJhDLw1yDhhzoN/e/C/O/C/a/D/I26251K06Zk/XrqqitM4NvL:qvfw1ahEVOS+Sq7IN251ikzq5tM4NvL',
    '1536:qJhDLw1yDhhzoN/e/C/O/C/a/D/I26251K06Zk/XrqqitM4NvL:qvfw1ahEVOS+Sq7IN251ikzq5tM4NvL',
  ],
  ['ssdeep', '24576:PLvqxk7+y/4NmWPWKrbE6qqE56Hglx8zudJhTyGwcKe:+', '24576:PLvqxk7+y/4NmWPWKrbE6qqE56Hglx8zudJhTyGwcKe:+'],
  ['ssdeep', '3072:GxXIbbVcpID+5/MiPDH8QnO3oMc+i+TN85mQLP\r\ngpnejnceJEOED:Gx4bbVZD+5\r\n/MiPDchdi+TN85muP0SlO', '3072:GxXIbbVcpID+5/MiPDH8QnO3oMc+i+TN85mQLPgpnejnceJEOED:Gx4bbVZD+5/MiPDchdi+TN85muP0SlO'],
  ['impfuzzy', '48:6DhamfhRd4tvDo4Xbgj:m+5DoAbgfU', '48:6DhamfhRd4tvDo4Xbgj:m+5DoAbgfU'],
  // IP addresses
  ['ip-dst', '101.51.40.175', '101.51.40.175'],
  ['ip-dst', '0.0.0.0', '0.0.0.0'],
  ['ip-dst', '255.255.255.255', '255.255.255.255'],
  ['ip-src', '10.10.30.110', '10.10.30.110'],
  ['ip-src', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
  ['ip-src', '2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
  ['ip-dst', '::', '::'],
  ['ip-dst', '::1', '::1'],
  ['ip-dst', '::FFFF:192.0.2.1', '::ffff:192.0.2.1'],
  ['ip-dst', 'fe80::1:0:0:0', 'fe80::1:0:0:0'],
  ['ip-dst', 'FE80:0:0:1:0:0:0:0', 'fe80:0:0:1::'],
  ['ip-dst', '192.168.0.0/16', '192.168.0.0/16'],
  ['ip-dst', '10.0.0.0/8', '10.0.0.0/8'],
  ['ip-dst', '0.0.0.0/0', '0.0.0.0/0'],
  ['ip-dst', '198.51.100.7/32', '198.51.100.7'],
  ['ip-src', '2001:db8::/32', '2001:db8::/32'],
  ['ip-src', '2001:db8::1/128', '2001:db8::1'],
  // ip|port (real + IPv6 forms)
  ['ip-dst|port', '125.212.132.222|443', '125.212.132.222|443'],
  ['ip-dst|port', '10.10.30.110|1992', '10.10.30.110|1992'],
  ['ip-dst|port', '192.0.2.1:8080', '192.0.2.1|8080'],
  ['ip-dst|port', '192.0.2.1|0', '192.0.2.1|0'],
  ['ip-dst|port', '192.0.2.1|65535', '192.0.2.1|65535'],
  ['ip-src|port', '[::1]:80', '::1|80'],
  ['ip-src|port', '[2001:DB8::1]:443', '2001:db8::1|443'],
  ['ip-src|port', '2001:db8::1|443', '2001:db8::1|443'],
  ['ip-src|port', '2001:db8::1 port 443', '2001:db8::1|443'],
  ['ip-src|port', '2001:db8::1#53', '2001:db8::1|53'],
  ['ip-src|port', '2001:db8::1.53', '2001:db8::1|53'],
  ['ip-src|port', '2001:db8::1|0080', '2001:db8::1|80'],
  // port
  ['port', '443', '443'],
  ['port', '0', '0'],
  ['port', '65535', '65535'],
  // domains / hostnames (real + normalisation)
  ['domain', 'ipv4.mikifox.com ', 'ipv4.mikifox.com'],
  ['domain', 'Example.COM.', 'example.com'],
  ['domain', 'bücher.de', 'xn--bcher-kva.de'],
  ['domain', 'xn--bcher-kva.de', 'xn--bcher-kva.de'],
  // real (Infoblox feed): the xn-- label is not decodable punycode, but is a valid DNS LDH label
  ['domain', 'xn--29s7inly9ib.ub66.com', 'xn--29s7inly9ib.ub66.com'],
  ['domain', '_dmarc.example.com', '_dmarc.example.com'],
  ['domain', 'my-host.co.uk', 'my-host.co.uk'],
  ['domain', `${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ['hostname', '20080628.3322.org', '20080628.3322.org'],
  ['hostname', 'decrypttozxybarc.onion', 'decrypttozxybarc.onion'],
  ['hostname', 'WWW.Tibetimes.com', 'www.tibetimes.com'],
  ['hostname|port', 'mail.example.com|25', 'mail.example.com|25'],
  ['hostname|port', 'Mail.Example.com:587', 'mail.example.com|587'],
  ['domain|ip', 'Example.com|192.0.2.1', 'example.com|192.0.2.1'],
  ['domain|ip', 'example.com|2001:0DB8::0001', 'example.com|2001:db8::1'],
  // email (real)
  ['email-src', 'AmazingDeals@dripwatt.co', 'amazingdeals@dripwatt.co'],
  ['email-src', 'supawadee.so@univance.co.th', 'supawadee.so@univance.co.th'],
  ['email-dst', 'user+tag@Example.org', 'user+tag@example.org'],
  ['email', 'admin@[192.0.2.1]', 'admin@[192.0.2.1]'],
  ['email', 'info@bücher.de', 'info@xn--bcher-kva.de'],
  ['target-email', 'ceo@example.com', 'ceo@example.com'],
  ['jabber-id', 'user@xmpp.example.org/resource', 'user@xmpp.example.org/resource'],
  // url / uri / link (real)
  ['url', 'hXXp[:]//62.60.178.163/ce369e7324834845.php', 'hXXp[:]//62.60.178.163/ce369e7324834845.php'],
  ['url', 'hXXps://antibotcloudapi.com/9.php ', 'hXXps://antibotcloudapi.com/9.php'],
  ['url', 'http://198.55.120.143:7386/B/ResN32.dll', 'http://198.55.120.143:7386/B/ResN32.dll'],
  ['url', 'Data/dtl.dat', 'Data/dtl.dat'],
  ['uri', '/wp-admin/admin-ajax.php?action=x', '/wp-admin/admin-ajax.php?action=x'],
  ['link', 'https://www.us-cert.gov/ncas/alerts/TA17-318A', 'https://www.us-cert.gov/ncas/alerts/TA17-318A'],
  // filename|hash composites (real)
  ['filename|sha256', `90t69cf82.dll|${SHA256}`, `90t69cf82.dll|${SHA256}`],
  ['filename|sha256', `brochure .doc|${SHA256.toUpperCase()}`, `brochure .doc|${SHA256}`],
  ['filename|md5', 'Micbt/RasTls.dll|1e9e9ce1445a13c1ff4bf82f4a38de0d', 'Micbt/RasTls.dll|1e9e9ce1445a13c1ff4bf82f4a38de0d'],
  ['filename|md5', `a|b.exe|${MD5}`, `a|b.exe|${MD5}`],
  ['filename|sha1', `a5ff5f.exe|${SHA1}`, `a5ff5f.exe|${SHA1}`],
  ['filename|sha512', `x.bin|${SHA512}`, `x.bin|${SHA512}`],
  ['filename|sha512/256', `x.bin|${hex(64)}`, `x.bin|${hex(64)}`],
  ['filename|imphash', `x.dll|${MD5}`, `x.dll|${MD5}`],
  ['filename|tlsh', `x.dll|${TLSH}`, `x.dll|${TLSH}`],
  ['filename|ssdeep', 'x.dll|6:JF1ZzA+QragXsoNLYjClAVyXHI+CIwZALICLA9XEUXR/JgW:L1J4aSJF+dyXo+Bb0LEUhyW', 'x.dll|6:JF1ZzA+QragXsoNLYjClAVyXHI+CIwZALICLA9XEUXR/JgW:L1J4aSJF+dyXo+Bb0LEUhyW'],
  ['filename|pehash', `x.exe|${SHA1}`, `x.exe|${SHA1}`],
  ['filename|vhash', 'x.exe|015046655d155d15z1001250z4aez1fz', 'x.exe|015046655d155d15z1001250z4aez1fz'],
  ['regkey|value', 'Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Run|%TEMP%\\3Z4wnG9603it23y.exe', 'Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Run|%TEMP%\\3Z4wnG9603it23y.exe'],
  ['regkey|value', 'HKCU\\Run|', 'HKCU\\Run|'],
  // AS
  ['AS', 'AS1234', '1234'],
  ['AS', '1234', '1234'],
  ['AS', 'as 13335', '13335'],
  ['AS', 'AS4294967295', '4294967295'],
  ['AS', '1.10', '65546'],
  // mac
  ['mac-address', '00:1A:2B:3C:4D:5E', '00:1a:2b:3c:4d:5e'],
  ['mac-address', '00-1a-2b-3c-4d-5e', '00:1a:2b:3c:4d:5e'],
  ['mac-address', '001a.2b3c.4d5e', '00:1a:2b:3c:4d:5e'],
  ['mac-address', '001A2B3C4D5E', '00:1a:2b:3c:4d:5e'],
  ['mac-eui-64', '00:1a:2b:ff:fe:3c:4d:5e', '00:1a:2b:ff:fe:3c:4d:5e'],
  // vulnerability / weakness (real)
  ['vulnerability', 'CVE-2012-0158', 'CVE-2012-0158'],
  ['vulnerability', 'cve-2021-44228', 'CVE-2021-44228'],
  ['vulnerability', 'CVE-2024–3094', 'CVE-2024-3094'],
  ['vulnerability', 'CVE-2021-1234567', 'CVE-2021-1234567'],
  ['weakness', 'cwe-79', 'CWE-79'],
  // numbers (real)
  ['size-in-bytes', '1020928', '1020928'],
  ['size-in-bytes', '0', '0'],
  ['counter', '4', '4'],
  ['counter', '007', '7'],
  ['integer', '-42', '-42'],
  ['float', '5.49321665686', '5.49321665686'],
  ['float', '-1.5e3', '-1.5e3'],
  ['float', '.5', '.5'],
  // datetime (real + ISO forms)
  ['datetime', '2018-03-27 03:33:29', '2018-03-27T03:33:29.000000+0000'],
  ['datetime', '2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000000+0000'],
  ['datetime', '2024-01-31T12:00:00.123+02:00', '2024-01-31T12:00:00.123000+0200'],
  ['datetime', '2024-01-31T12:00:00.1234567-0530', '2024-01-31T12:00:00.123456-0530'],
  ['datetime', '2024-01-31', '2024-01-31T00:00:00.000000+0000'],
  ['datetime', '2024-01-31T12:00', '2024-01-31T12:00:00.000000+0000'],
  // crypto (real)
  ['btc', '1GCaWA685Nj2PqqG7P2ZBACYZB8ZtpQuQ9', '1GCaWA685Nj2PqqG7P2ZBACYZB8ZtpQuQ9'],
  ['btc', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
  ['btc', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
  ['iban', 'de89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
  ['bic', 'DEUTDEFF', 'DEUTDEFF'],
  // misc identifiers
  ['uuid', '5A0D6D2B-A2D8-40E5-A43E-458E950D210F', '5a0d6d2b-a2d8-40e5-a43e-458e950d210f'],
  ['boolean', 'True', '1'],
  ['boolean', '0', '0'],
  ['hex', 'deadBEEF', 'DEADBEEF'],
  ['http-method', 'post', 'POST'],
  ['onion-address', 'decrypttozxybarc.onion', 'decrypttozxybarc.onion'],
  ['favicon-mmh3', '-1376541012', '-1376541012'],
  ['cpe', 'cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*', 'cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*'],
  ['phone-number', '0044 (0)20 7946 0958', '+442079460958'],
  ['ssh-fingerprint', 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8', 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8'],
  ['windows-service-name', 'WinDefend', 'WinDefend'],
  ['cortex', '{"a":1}', '{"a":1}'],
  // free text and defaults (real)
  ['filename', '2016總統選舉民情中心預測値.doc', '2016總統選舉民情中心預測値.doc'],
  ['filename', '%APPDATA%\\Microsoft\\Cexpalgxx\\Cexpalgxx.exe', '%APPDATA%\\Microsoft\\Cexpalgxx\\Cexpalgxx.exe'],
  ['pdb', 'D:\\WORK\\T9000\\N_Inst_User_M1\\Release\\N_Inst_User32.pdb', 'D:\\WORK\\T9000\\N_Inst_User_M1\\Release\\N_Inst_User32.pdb'],
  ['mutex', 'Global\\冰ǣ', 'Global\\冰ǣ'],
  ['regkey', 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run', 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run'],
  ['mime-type', 'PE32 executable (console) Intel 80386 Mono/.Net assembly, for MS Windows', 'PE32 executable (console) Intel 80386 Mono/.Net assembly, for MS Windows'],
  ['text', 'line one\nline two', 'line one\nline two'],
  ['comment', '  padded  ', 'padded'],
  ['yara', 'rule x { condition: true }', 'rule x { condition: true }'],
  ['other', 'x'.repeat(MAX_VALUE_LENGTH), 'x'.repeat(MAX_VALUE_LENGTH)],
];

/** [type, input] — each must fail, with a reason naming the type. */
const BAD: [string, string][] = [
  ['ip-dst', '999.1.1.1'],
  ['ip-dst', '256.0.0.1'],
  ['ip-dst', '1.2.3'],
  ['ip-dst', '1.2.3.4.5'],
  ['ip-dst', '010.1.1.1'],
  ['ip-dst', '1.2.3.4/33'],
  ['ip-dst', '1.2.3.4/'],
  ['ip-dst', '1.2.3.4/8/8'],
  ['ip-dst', '2001:db8::1/129'],
  ['ip-dst', '2001:db8::g'],
  ['ip-dst', '1::2::3'],
  ['ip-dst', '1:2:3:4:5:6:7:8:9'],
  ['ip-dst', 'fe80::1%eth0'],
  ['ip-dst', 'example.com'],
  ['ip-src', ''],
  ['ip-src', '   '],
  ['ip-src', '1.2.3.4 5'],
  ['md5', hex(31)],
  ['md5', hex(33)],
  ['md5', `${hex(31)}g`],
  ['md5', ''],
  ['sha1', hex(39)],
  ['sha256', SHA1],
  ['sha512', SHA256],
  ['sha512/256', hex(56)],
  ['sha3-384', hex(64)],
  ['imphash', 'not-a-hash'],
  ['authentihash', MD5],
  ['ja3-fingerprint-md5', hex(40)],
  ['x509-fingerprint-sha256', SHA1],
  ['tlsh', 'T1abc'],
  ['ssdeep', 'not:ssdeep'],
  ['ssdeep', 'abc:def:ghi'],
  ['ip-dst|port', '1.2.3.4|70000'],
  ['ip-src|port', '1.2.3.4:99999'],
  ['ip-dst|port', '999.1.1.1|80'],
  ['ip-dst|port', '1.2.3.4'],
  ['ip-dst|port', '1.2.3.4|'],
  ['ip-dst|port', '1.2.3.4|http'],
  ['ip-dst|port', '10.0.0.0/8|80'],
  ['ip-dst|port', '[::1]80'],
  ['ip-dst|port', '2001:db8::1'],
  ['port', '70000'],
  ['port', '-1'],
  ['port', '80a'],
  ['domain', 'localhost'],
  ['domain', '-bad.example.com'],
  ['domain', 'bad-.example.com'],
  ['domain', 'a..b.com'],
  ['domain', 'exa mple.com'],
  ['domain', '*.example.com'],
  ['domain', '1.2.3.4'],
  ['domain', 'example.c'],
  ['domain', `${'a'.repeat(64)}.com`],
  ['domain', `${'abcdefghi.'.repeat(26)}com`],
  ['hostname', 'http://example.com/'],
  ['hostname', 'bücher\u0000.de'],
  ['domain', 'ex@mple.com'],
  ['hostname|port', 'example.com|70000'],
  ['hostname|port', 'bad_host|80'],
  ['domain|ip', 'example.com|999.1.1.1'],
  ['domain|ip', 'example.com'],
  ['domain|ip', 'example.com|10.0.0.0/8'],
  ['email-src', 'no-at-sign.example.com'],
  ['email-src', '@example.com'],
  ['email-dst', 'user@'],
  ['email', 'us er@example.com'],
  ['email', 'user@localhost'],
  ['email', 'a@b@example.com'],
  ['url', ''],
  ['url', 'http://exa mple.com/'],
  ['url', 'http://example.com/\u0007'],
  ['uri', '/a\tb'],
  ['link', 'www.example.com/no-scheme'],
  ['link', 'https://example.com/a b'],
  ['filename|sha256', TLSH],
  ['filename|sha256', `file.exe|${SHA1}`],
  ['filename|sha256', `|${SHA256}`],
  ['filename|md5', `a.exe|${hex(31)}`],
  ['filename|sha1', `a.exe|${SHA1}|extra`],
  ['filename|ssdeep', 'a.exe|garbage'],
  ['filename', 'a\nb.exe'],
  ['AS', 'AS'],
  ['AS', 'AS-1'],
  ['AS', '4294967296'],
  ['AS', 'ASN12x'],
  ['mac-address', '00:1a:2b:3c:4d'],
  ['mac-address', '00:1a:2b:3c:4d:5e:6f'],
  ['mac-address', 'zz:1a:2b:3c:4d:5e'],
  ['mac-address', '00:1a-2b:3c:4d:5e'],
  ['vulnerability', 'CVE-2021-123'],
  ['vulnerability', 'CVE-21-12345'],
  ['vulnerability', 'log4shell'],
  ['weakness', 'CWE-'],
  ['weakness', 'CVE-2021-44228'],
  ['size-in-bytes', '-1'],
  ['size-in-bytes', '1.5'],
  ['counter', 'four'],
  ['float', '1.2.3'],
  ['float', 'NaN'],
  ['datetime', 'yesterday'],
  ['datetime', '2023-02-29T00:00:00Z'],
  ['datetime', '2024-13-01'],
  ['datetime', '2024-01-01T24:00:00'],
  ['btc', '0GCaWA685Nj2PqqG7P2ZBACYZB8ZtpQuQ9'],
  ['btc', 'bc1QAR0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
  ['uuid', 'not-a-uuid'],
  ['boolean', 'yes'],
  ['hex', '0xZZ'],
  ['http-method', 'FETCH'],
  ['onion-address', 'example.onion'],
  ['windows-service-name', 'C:\\svc'],
  ['cortex', '{not json'],
  ['text', 'abc\u0000def'],
  ['comment', '\u0000'],
  ['md5', `${MD5}\u0000`],
  ['text', ''],
  ['other', 'x'.repeat(MAX_VALUE_LENGTH + 1)],
  ['regkey|value', '|data'],
];

describe('validateAttributeValue', () => {
  it('has a table of at least 100 good and 100 bad values', () => {
    expect(GOOD.length).toBeGreaterThanOrEqual(100);
    expect(BAD.length).toBeGreaterThanOrEqual(100);
  });

  it.each(GOOD.map(([type, input, normalized]) => ({ type, label: label(input), input, normalized })))(
    'accepts $type $label',
    ({ type, input, normalized }) => {
      expect(validateAttributeValue(type, input)).toEqual({ ok: true, normalized });
    },
  );

  it.each(BAD.map(([type, input]) => ({ type, label: label(input), input })))('rejects $type $label', ({ type, input }) => {
    const r = validateAttributeValue(type, input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason.startsWith(`${type}: `)).toBe(true);
      expect(r.reason.length).toBeLessThan(160);
    }
  });

  it('explains common failures', () => {
    expect(validateAttributeValue('ip-dst', '999.1.1.1')).toEqual({
      ok: false,
      reason: 'ip-dst: IPv4 octet 999 is out of range 0-255',
    });
    expect(validateAttributeValue('md5', hex(31))).toEqual({
      ok: false,
      reason: 'md5: expected 32 hexadecimal characters, got 31',
    });
    expect(validateAttributeValue('ip-dst|port', '1.2.3.4|70000')).toEqual({
      ok: false,
      reason: 'ip-dst|port: port part: port 70000 is out of range 0-65535',
    });
    expect(validateAttributeValue('text', '')).toEqual({ ok: false, reason: 'text: value is empty' });
    expect(validateAttributeValue('text', 'a\u0000')).toEqual({ ok: false, reason: 'text: value contains a NUL byte' });
  });

  it('rejects unknown types and non-string values', () => {
    expect(validateAttributeValue('no-such-type', 'x')).toEqual({ ok: false, reason: 'unknown attribute type "no-such-type"' });
    expect(validateAttributeValue('md5', 42 as unknown as string).ok).toBe(false);
  });

  it('has a rule for every describeTypes type: empty and NUL always fail, normalisation is idempotent', () => {
    for (const type of getAttributeCatalogue().typeNames) {
      expect(validateAttributeValue(type, '').ok, type).toBe(false);
      expect(validateAttributeValue(type, '\u0000').ok, type).toBe(false);
    }
    for (const [type, input] of GOOD) {
      const first = validateAttributeValue(type, input);
      if (!first.ok) continue; // reported by the table test
      expect(validateAttributeValue(type, first.normalized), `${type} ${input}`).toEqual(first);
    }
  });
});
