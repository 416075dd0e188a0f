/**
 * A stored document's `body` (table version 11, `./schema.ts`): its source and its posting keys
 * (`./postings.ts`) as one compressed value, which only Node reads: the source for hits and scans,
 * the keys for the writers that replace or delete the document (`./writes.ts`). No statement
 * searches either, so neither needs to be JSONB or `text[]`.
 *
 * Why compressed here and not by PostgreSQL: it compresses a value only when its row is over ~2 KB
 * (`TOAST_TUPLE_THRESHOLD`, fixed at build time), and an attribute's row is ~2 KB: most were stored
 * as they were (bench/README.md "Search", "Where the writes go"). A document is a few hundred
 * bytes of JSON whose keys and common values repeat in every document: deflate alone halves it,
 * deflate with a preset dictionary of those repeated strings stores 1,138 bytes (source and keys)
 * in ~190 (bench/README.md "table version 11").
 *
 * Format: one byte, the format (`1`), then `deflateRaw` of `JSON.stringify([source, keys])` with
 * DICTIONARY_1. The dictionary is part of the stored format: it never changes. Another dictionary
 * (new fields, other common values) would be format 2, and the rows of format 1 stay readable.
 */
import zlib from "node:zlib";

const FORMAT_1 = 1;

/**
 * Strings that recur in documents as `JSON.stringify` writes them (field names of `../fields.ts`
 * when format 1 was made, common MISP values) and in posting keys. Deflate finds a repeat in the
 * last 8 KB; the most frequent strings are last (nearer repeats cost fewer bits).
 */
const DICTIONARY_1 = Buffer.from(
  [
    '{"uuid":"","info":"","org_id":1,"orgc_id":1,"user_id":1,"date":"","published":true,"analysis":2,"threat_level":3,',
    '"attribute_count":0,"object_count":0,"publish_timestamp":0,"sighting_timestamp":0,"locked":false,"protected":null,',
    '"extends_uuid":null,"organisation":{"uuid":"","name":""},"orgc":{"uuid":"","name":""},"reports":[{"uuid":"","name":"","content":""}],',
    '"source_attribute_uuid":"","source_event_uuid":"","source_attribute_type":"","source_attribute_value":"",',
    '"target_attribute_uuid":"","target_event_uuid":"","target_attribute_type":"","target_attribute_value":"","match_type":"term",',
    '"warnings":[{"id":1,"name":""}],"expanded":{"ip":"","ip_range":""},"tags":[{"name":"tlp:white","colour":"#FFFFFF","local":false,"is_galaxy":false}],',
    '"tlp:green","tlp:amber","tlp:clear","misp-galaxy:","type":"ip-dst","type":"ip-src","type":"url","type":"md5","type":"sha1","type":"sha256",',
    '"type":"filename","type":"link","type":"text","type":"email-src","type":"hostname","category":"Payload delivery","category":"External analysis",',
    '"category":"Artifacts dropped","category":"Network activity","http://","https://","www.",".com",".net",".org",',
    '["a\\u0001","etimestamp\\u0001p000000000","einfo\\u0001","eorganisation.name\\u0001","eorgc.name\\u0001","etags.name\\u0001","ethreat_level\\u0001p0000000000000000001","eanalysis\\u0001p0000000000000000002",',
    '"eorg_id\\u0001p0000000000000000001","eorgc_id\\u0001p0000000000000000001","epublished\\u0001true","edate\\u0001p000000","e\\u0001",',
    '"atags.name\\u0001tlp:white","atags.name.keyword\\u0001","aobject_relation\\u0001","avalue\\u00024","aexpanded.ip\\u00014",',
    '"acategory\\u0001payload","acategory\\u0001delivery","acategory.keyword\\u0001Payload delivery","acategory\\u0002payload delivery",',
    '"atype\\u0001ip","atype\\u0001dst","atype.keyword\\u0001ip-dst","atype\\u0002ip dst","atype\\u0001sha256","atype.keyword\\u0001sha256",',
    '"acomment.keyword\\u0001","ato_ids\\u0001false","ato_ids\\u0001true","adistribution\\u0001p0000000000000000005",',
    '"atimestamp\\u0001p0000000001","afirst_seen\\u0001p0000000001","alast_seen\\u0001p0000000001",',
    '"acategory\\u0001network","acategory\\u0001activity","acategory.keyword\\u0001Network activity","acategory\\u0002network activity",',
    '"atype\\u0001domain","atype.keyword\\u0001domain","avalue\\u0001","avalue.keyword\\u0001","avalue\\u0002"]]',
    '[{"tags":[],"type":"domain","uuid":"","value":"","to_ids":true,"comment":"","deleted":false,"category":"Network activity",',
    '"expanded":{},"last_seen":null,"timestamp":1,"@timestamp":"2024-01-01T00:00:00.000Z","event_uuid":"","first_seen":1,',
    '"visible_to":[-1],"object_uuid":null,"distribution":5,"event_org_id":1,"event_orgc_id":1,"object_relation":null,',
    '"event_distribution":1,"disable_correlation":false,"object_distribution":null},',
  ].join(""),
);

/** Format 1's deflate window: the dictionary and a document's repeats within it (the inflater must use the same). */
const WINDOW_BITS = 13;
const OPTIONS_1: zlib.ZlibOptions = { dictionary: DICTIONARY_1, windowBits: WINDOW_BITS, level: 6, memLevel: 8 };

export interface Packed {
  source: Record<string, unknown>;
  keys: string[];
}

export function pack(source: Record<string, unknown>, keys: string[]): Buffer {
  const deflated = zlib.deflateRawSync(Buffer.from(JSON.stringify([source, keys])), OPTIONS_1);
  return Buffer.concat([Buffer.from([FORMAT_1]), deflated]);
}

export function unpack(body: Buffer): Packed {
  if (body[0] !== FORMAT_1) throw new Error(`search document body: unknown format ${body[0]}`);
  const [source, keys] = JSON.parse(zlib.inflateRawSync(body.subarray(1), { dictionary: DICTIONARY_1, windowBits: WINDOW_BITS }).toString("utf8")) as [Record<string, unknown>, string[]];
  return { source, keys };
}
