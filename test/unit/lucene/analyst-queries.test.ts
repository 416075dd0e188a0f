/**
 * Queries as analysts type them in MISP / OpenSearch "Explore", with values
 * taken from ../shared/data/misp-events and ../shared/data/misp-feed-sample.
 */
import { describe, expect, it } from 'vitest';
import type { LuceneAst } from '../../../src/search/lucene/ast.ts';
import { parseLucene } from '../../../src/search/lucene/parse.ts';
import { allOf, anyOf, bool, exists, phrase, range, regex, term, wild } from './builders.ts';

const r = String.raw;

const SHA256 = 'a606716355035d4a1ea0b15f3bee30aad41a2c32df28c2d468eafd18361d60d6';
const MD5 = '1216da2b3d6e64075e8434be1058de06';
const SHA1 = 'f83f30bd284074d1daaf2e262a280ca780791f2c';

const cases: ReadonlyArray<readonly [string, LuceneAst]> = [
  // --- indicators by type/value
  ['type:ip-dst AND value:98.101.211.162', allOf(term('type', 'ip-dst'), term('value', '98.101.211.162'))],
  ['value:81.0.213.173 OR value:175.100.189.174', anyOf(term('value', '81.0.213.173'), term('value', '175.100.189.174'))],
  ['value:(81.0.213.173 OR 175.100.189.174 OR 98.101.211.162)', anyOf(term('value', '81.0.213.173'), term('value', '175.100.189.174'), term('value', '98.101.211.162'))],
  // Pitfall: without OR this is ONE value for OpenSearch (no hit on keyword, error on ip fields).
  ['value:(81.0.213.173 175.100.189.174)', term('value', '81.0.213.173 175.100.189.174')],
  [`md5:${MD5} OR sha1:${SHA1} OR sha256:${SHA256}`, anyOf(term('md5', MD5), term('sha1', SHA1), term('sha256', SHA256))],
  [`value:${SHA256}`, term('value', SHA256)],
  [
    'type:(md5 OR sha1 OR sha256) AND to_ids:true',
    allOf(anyOf(term('type', 'md5'), term('type', 'sha1'), term('type', 'sha256')), term('to_ids', 'true')),
  ],
  [
    'type:filename|sha256 AND value:IEChecker.exe*',
    allOf(term('type', 'filename|sha256'), wild('value', 'IEChecker.exe*')),
  ],
  [
    'value:IEChecker.exe|7a200c4df99887991c638fe625d07a4a3fc2bdc887112437752b3df5c8da79b6',
    term('value', 'IEChecker.exe|7a200c4df99887991c638fe625d07a4a3fc2bdc887112437752b3df5c8da79b6'),
  ],
  ['type:ip-dst|port AND value:125.212.132.222|443', allOf(term('type', 'ip-dst|port'), term('value', '125.212.132.222|443'))],
  ['value:"brochure .rar|c8c6365bf21d947e8e986d4766a9fc16"', phrase('value', 'brochure .rar|c8c6365bf21d947e8e986d4766a9fc16')],
  ['domain:gugehotel.cn OR domain:softinc.pw OR domain:turkiyeuyghur.com', anyOf(term('domain', 'gugehotel.cn'), term('domain', 'softinc.pw'), term('domain', 'turkiyeuyghur.com'))],
  ['hostname:*.gicp.net', wild('hostname', '*.gicp.net')],
  ['hostname:akm.epac.to -type:domain', bool({ should: [term('hostname', 'akm.epac.to')], mustNot: [term('type', 'domain')] })],
  ['email-src:bill_clay6801@yahoo.com', term('email-src', 'bill_clay6801@yahoo.com')],
  ['email-src:*@gmail.com AND category:"Payload delivery"', allOf(wild('email-src', '*@gmail.com'), phrase('category', 'Payload delivery'))],
  ['email-subject:"[BULK] TIBET, OUR BELOVED NATION"', phrase('email-subject', '[BULK] TIBET, OUR BELOVED NATION')],
  ['vulnerability:CVE-2015-1770 OR vulnerability:CVE-2012-*', anyOf(term('vulnerability', 'CVE-2015-1770'), wild('vulnerability', 'CVE-2012-*'))],
  ['btc:1GCaWA685Nj2PqqG7P2ZBACYZB8ZtpQuQ9', term('btc', '1GCaWA685Nj2PqqG7P2ZBACYZB8ZtpQuQ9')],
  ['port:(443 OR 1992) AND type:port', allOf(anyOf(term('port', '443'), term('port', '1992')), term('type', 'port'))],
  ['size-in-bytes:[512 TO 94208]', range('size-in-bytes', '512', '94208', true, true)],
  ['size-in-bytes:>=1020928', range('size-in-bytes', '1020928', null, true, false)],
  ['imphash:fea5902afa6e504a798c73a09b83df5e', term('imphash', 'fea5902afa6e504a798c73a09b83df5e')],
  ['value:192.168.?.1', wild('value', '192.168.?.1')],
  ['value:10.* AND NOT value:10.10.30.110', bool({ must: [wild('value', '10.*')], mustNot: [term('value', '10.10.30.110')] })],
  // --- CIDRs, IPv6, URLs and paths (special characters)
  ['ip-dst:"10.0.0.0/8"', phrase('ip-dst', '10.0.0.0/8')],
  [r`ip-dst:10.0.0.0\/8`, term('ip-dst', '10.0.0.0/8')],
  [r`ip-dst:2001\:db8\:\:1`, term('ip-dst', '2001:db8::1')],
  ['ip-dst:"2001:db8::ff00:42:8329"', phrase('ip-dst', '2001:db8::ff00:42:8329')],
  [r`ip-src:fe80\:\:1%eth0`, term('ip-src', 'fe80::1%eth0')],
  ['url:"https://www.us-cert.gov/ncas/alerts/TA17-318A"', phrase('url', 'https://www.us-cert.gov/ncas/alerts/TA17-318A')],
  [r`url:https\:\/\/www.us-cert.gov\/ncas\/alerts\/TA17-318A`, term('url', 'https://www.us-cert.gov/ncas/alerts/TA17-318A')],
  [r`url:http\:\/\/decrypttozxybarc.onion\/*`, wild('url', 'http://decrypttozxybarc.onion/*')],
  [r`url:/https?:\/\/[a-z0-9]+\.onion\/.*/`, regex('url', r`https?:\/\/[a-z0-9]+\.onion\/.*`)],
  ['domain:/[a-z]+\\.pro/', regex('domain', '[a-z]+\\.pro')],
  ['domain:/.*uyghur\\.(com|top)/ AND category:"Network activity"', allOf(regex('domain', '.*uyghur\\.(com|top)'), phrase('category', 'Network activity'))],
  [r`regkey:HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run`, term('regkey', r`HKCU\Software\Microsoft\Windows\CurrentVersion\Run`)],
  [r`pdb:Q\:\\Projects\\Br2012\\Release\\svc.pdb`, term('pdb', r`Q:\Projects\Br2012\Release\svc.pdb`)],
  [r`pdb:*\\Release\\*.pdb`, wild('pdb', r`*\Release\*.pdb`, r`*\\Release\\*.pdb`)],
  [r`mutex:Global\\冰ǣ`, term('mutex', 'Global\\冰ǣ')],
  ['filename:與天空有約*', wild('filename', '與天空有約*')],
  [r`filename:brochure\ .doc`, term('filename', 'brochure .doc')],
  [r`ssdeep:1536\:qJhDLw1yDhhzoN\/e\/C*`, wild('ssdeep', '1536:qJhDLw1yDhhzoN/e/C*')],
  // --- tags, galaxies, taxonomies
  [r`tags.name:tlp\:white`, term('tags.name', 'tlp:white')],
  ['tags.name:"tlp:white" OR tags.name:"tlp:clear"', anyOf(phrase('tags.name', 'tlp:white'), phrase('tags.name', 'tlp:clear'))],
  ['tags.name:tlp*', wild('tags.name', 'tlp*')],
  [r`-tags.name:tlp\:red`, bool({ mustNot: [term('tags.name', 'tlp:red')] })],
  [
    r`tags.name:"misp-galaxy:threat-actor=\"Lazarus Group\""`,
    phrase('tags.name', 'misp-galaxy:threat-actor="Lazarus Group"'),
  ],
  [
    r`tags.name:misp-galaxy\:mitre-attack-pattern=\"Permission\ Groups\ Discovery\ -\ T1069\"`,
    term('tags.name', 'misp-galaxy:mitre-attack-pattern="Permission Groups Discovery - T1069"'),
  ],
  [r`tags.name:misp-galaxy\:mitre-attack-pattern*`, wild('tags.name', 'misp-galaxy:mitre-attack-pattern*')],
  ['tags.name:*T1069*', wild('tags.name', '*T1069*')],
  [
    r`tags.name:osint\:source-type=\"blog-post\" AND NOT tags.name:tlp\:white`,
    bool({ must: [term('tags.name', 'osint:source-type="blog-post"')], mustNot: [term('tags.name', 'tlp:white')] }),
  ],
  // An unescaped quote after the escaped colon starts a separate phrase (same as OpenSearch).
  [
    r`tags.name:circl\:incident-classification="malware"`,
    anyOf(term('tags.name', 'circl:incident-classification='), phrase(null, 'malware')),
  ],
  [
    'galaxies.value:("Lazarus Group" OR "APT1 - G0006") AND threat_level_id:<=2',
    allOf(
      anyOf(phrase('galaxies.value', 'Lazarus Group'), phrase('galaxies.value', 'APT1 - G0006')),
      range('threat_level_id', null, '2', false, true),
    ),
  ],
  // --- event fields, geo, timestamps and date math
  ['info:"HIDDEN COBRA" AND info:FALLCHILL', allOf(phrase('info', 'HIDDEN COBRA'), term('info', 'FALLCHILL'))],
  ['info:"remote administration tool"~3', phrase('info', 'remote administration tool', 3)],
  ['info:ransomware~1 OR info:PUBG^2', anyOf(term('info', 'ransomware', { fuzzy: 1 }), term('info', 'PUBG', { boost: 2 }))],
  ['expanded.ip2geo.country_iso_code:(CN OR KP) AND NOT type:ip-src', bool({ must: [anyOf(term('expanded.ip2geo.country_iso_code', 'CN'), term('expanded.ip2geo.country_iso_code', 'KP'))], mustNot: [term('type', 'ip-src')] })],
  ['_exists_:expanded.ip2geo.country_iso_code AND -_exists_:sightings', bool({ must: [exists('expanded.ip2geo.country_iso_code')], mustNot: [exists('sightings')] })],
  ['NOT _exists_:tags.name', bool({ mustNot: [exists('tags.name')] })],
  ['comment:* AND type:link', allOf(exists('comment'), term('type', 'link'))],
  ['@timestamp:[now-7d/d TO now]', range('@timestamp', 'now-7d/d', 'now', true, true)],
  ['@timestamp:[now-5y/y TO now}', range('@timestamp', 'now-5y/y', 'now', true, false)],
  ['@timestamp:>=now-7d AND type:url', allOf(range('@timestamp', 'now-7d', null, true, false), term('type', 'url'))],
  ['@timestamp:>now-1h', range('@timestamp', 'now-1h', null, false, false)],
  ['first_seen:[2024-01-01 TO 2024-01-01||+1M/d]', range('first_seen', '2024-01-01', '2024-01-01||+1M/d', true, true)],
  ['date:{2018-03-28 TO *]', range('date', '2018-03-28', null, false, false)],
  ['timestamp:<2018-04-10', range('timestamp', null, '2018-04-10', false, false)],
  ['datetime:"2018-04-10 14:41:38"', phrase('datetime', '2018-04-10 14:41:38')],
  ['@timestamp:[2018-03-28T21:29:35Z TO 2018-03-29T14:55:24Z]', range('@timestamp', '2018-03-28T21:29:35Z', '2018-03-29T14:55:24Z', true, true)],
  [
    '(type:domain OR type:hostname) AND -value:*.gov AND @timestamp:>=now-30d',
    bool({
      must: [anyOf(term('type', 'domain'), term('type', 'hostname')), range('@timestamp', 'now-30d', null, true, false)],
      mustNot: [wild('value', '*.gov')],
    }),
  ],
  ['+category:"Network activity" +type:(domain OR hostname) -tags.name:false-positive', bool({ must: [phrase('category', 'Network activity'), anyOf(term('type', 'domain'), term('type', 'hostname'))], mustNot: [term('tags.name', 'false-positive')] })],
  [r`category:Network\ activity`, term('category', 'Network activity')],
  ['Attribute.category:"Artifacts dropped" && Attribute.type:regkey', allOf(phrase('Attribute.category', 'Artifacts dropped'), term('Attribute.type', 'regkey'))],
  ['emotet', term(null, 'emotet')],
  ['emotet trickbot', term(null, 'emotet trickbot')],
  ['emotet OR trickbot OR qakbot', anyOf(term(null, 'emotet'), term(null, 'trickbot'), term(null, 'qakbot'))],
  ['"cobalt strike" beacon', anyOf(phrase(null, 'cobalt strike'), term(null, 'beacon'))],
];

describe('analyst queries', () => {
  it.each(cases)('%s', (query, expected) => {
    expect(parseLucene(query)).toStrictEqual(expected);
  });
});
