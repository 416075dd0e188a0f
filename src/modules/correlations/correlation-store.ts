/**
 * The SQL of correlation: which attributes of other events share a value (or a part of a composite
 * value, or an address inside a network) with a batch of attributes, and the diff against the pairs
 * stored. Set-based per batch: an import of 100 000 attributes is 50 batches, not 100 000 lookups.
 */
import type { Sql } from "../../platform/db/transaction.ts";
import rules from "./correlation-rules.json" with { type: "json" };

export type MatchType = "term" | "composite" | "cidr";

export interface CorrelationSettings {
  /** A value found in more events than this never correlates (MISP's over-correlation guard). */
  maxEventsPerValue: number;
  matchTypes: MatchType[];
}

export interface PairRow {
  id: number;
  source_attribute_id: number;
  target_attribute_id: number;
  match_type: MatchType;
}

interface Match {
  sourceId: number;
  targetId: number;
  sourceEventId: number;
  targetEventId: number;
  value: string;
  matchType: MatchType;
}

const NON_CORRELATING = rules.nonCorrelatingTypes;
const PRIMARY_ONLY = rules.primaryOnlyTypes;
const CIDR_TYPES = Object.keys(rules.cidrTypes);
/** The address or network of an address-typed attribute: attributes_address_spgist_idx's expression, to the letter. */
const ADDRESS_OF = (alias: string) => `wb_try_inet(CASE WHEN ${alias}.type = 'domain|ip' THEN ${alias}.value2 ELSE ${alias}.value1 END)`;

/**
 * An attribute that takes part in correlation (alias `b`, event alias `be`): a soft-deleted event's
 * do not, nor values on an enabled warninglist (known-good or noisy values would pair everything).
 */
const ELIGIBLE = (a: string, e: string) =>
  `NOT ${a}.deleted AND NOT ${e}.deleted AND NOT ${a}.disable_correlation AND NOT ${e}.disable_correlation AND ${a}.type <> ALL($2::text[]) AND ${a}.warnings = '[]'::jsonb`;

/** `%` is the only wildcard of an exclusion: LIKE's `_` and `\` are escaped. */
const EXCLUDED = (value: string) =>
  `EXISTS (SELECT 1 FROM correlation_exclusions x WHERE ${value} LIKE replace(replace(x.value, '\\', '\\\\'), '_', '\\_'))`;

/**
 * The pairs of one attribute (`id` is an SQL expression), read through the two id indexes: a join on
 * `id IN (source, target)` makes the planner scan the whole table.
 */
const PAIRS_OF = (id: string, matchType = "TRUE") =>
  `(SELECT * FROM correlations WHERE source_attribute_id = ${id} AND ${matchType}
    UNION ALL SELECT * FROM correlations WHERE target_attribute_id = ${id} AND ${matchType})`;

/**
 * The attributes whose value1, or value2 of a composite that correlates on both parts, is `value`
 * (an SQL expression), read through the value1 and value2 indexes first whatever the statistics say
 * (OFFSET 0): the columns ELIGIBLE reads.
 */
const HOLDING = (value: string) => `(
    SELECT b.id, b.event_id, b.type, b.deleted, b.disable_correlation, b.warnings FROM attributes b WHERE b.value1 = ${value}
    UNION ALL
    SELECT b.id, b.event_id, b.type, b.deleted, b.disable_correlation, b.warnings FROM attributes b
     WHERE b.value2 = ${value} AND b.value1 IS DISTINCT FROM ${value} AND b.type <> ALL($3::text[])
    OFFSET 0)`;

/**
 * The attribute row with this id (an SQL expression), read through the primary key whatever the
 * statistics say: on a table loaded since its last ANALYZE, `id = ANY(1,000 ids)` was planned as a
 * scan of the whole table, once per batch.
 */
const BY_ID = (id: string) => `(SELECT * FROM attributes WHERE id = ${id} OFFSET 0)`;

const pairKey = (a: number, b: number, t: string) => (a < b ? `${a}:${b}:${t}` : `${b}:${a}:${t}`);

/** A stored pair with the value it was made through. */
type StoredPair = PairRow & { value: string };

/** The values a stored attribute takes part in correlation with: value1, and value2 unless its type correlates on the first part only. */
function correlatingValues(type: string, value1: string | null, value2: string | null): string[] {
  const values = value1 ? [value1] : [];
  if (value2 && !PRIMARY_ONLY.includes(type)) values.push(value2);
  return values;
}

/**
 * The batch's attributes as they are now (one primary-key probe each) with every pair they have,
 * of any match type (two id-index probes each), in one round trip: their values and their pairs'
 * values are the values the batch touches (a changed or deleted value must lose its pairs), and
 * their CIDR pairs are judged again by `cidrMatches`. A hard-deleted attribute has no row and no
 * pairs left (the foreign key cascades).
 */
async function batchAttributes(sql: Sql, ids: number[]): Promise<{ values: string[]; addressIds: number[]; pairs: StoredPair[] }> {
  if (ids.length === 0) return { values: [], addressIds: [], pairs: [] };
  const { rows } = await sql.query<{ id: number; type: string; value1: string | null; value2: string | null; pairs: StoredPair[] | null }>(
    `SELECT a.id, a.type, a.value1, a.value2,
            (SELECT json_agg(json_build_object('id', c.id, 'source_attribute_id', c.source_attribute_id, 'target_attribute_id', c.target_attribute_id,
                                               'match_type', c.match_type, 'value', c.value))
               FROM ${PAIRS_OF("a.id")} c) AS pairs
       FROM unnest($1::bigint[]) AS i(id) CROSS JOIN LATERAL ${BY_ID("i.id")} a`,
    [ids],
  );
  const values = new Set<string>();
  const addressIds: number[] = [];
  const pairs: StoredPair[] = [];
  for (const r of rows) {
    for (const v of correlatingValues(r.type, r.value1, r.value2)) values.add(v);
    if (CIDR_TYPES.includes(r.type)) addressIds.push(r.id);
    for (const p of r.pairs ?? []) {
      pairs.push(p);
      if (p.match_type !== "cidr") values.add(p.value);
    }
  }
  return { values: [...values], addressIds, pairs };
}

/**
 * The pairs stored under these values (CIDR pairs aside: theirs is the network), each with the
 * current values of both its attributes: a pair stored under one value may hold through another
 * now, and must be judged by all of them. Value by value (LATERAL ... OFFSET 0): the planner
 * otherwise assumes every value is popular and scans the table.
 */
async function pairsByValue(sql: Sql, values: string[]): Promise<{ pairs: StoredPair[]; partnerValues: string[] }> {
  if (values.length === 0) return { pairs: [], partnerValues: [] };
  const { rows } = await sql.query<StoredPair & { partners: { type: string; value1: string | null; value2: string | null }[] | null }>(
    `SELECT c.id, c.source_attribute_id, c.target_attribute_id, c.match_type, c.value,
            (SELECT json_agg(json_build_object('type', a.type, 'value1', a.value1, 'value2', a.value2))
               FROM attributes a WHERE a.id IN (c.source_attribute_id, c.target_attribute_id)) AS partners
       FROM unnest($1::text[]) AS v(value)
       CROSS JOIN LATERAL (SELECT * FROM correlations WHERE value = v.value AND match_type <> 'cidr' OFFSET 0) c`,
    [values],
  );
  const partnerValues = new Set<string>();
  for (const r of rows) for (const a of r.partners ?? []) for (const v of correlatingValues(a.type, a.value1, a.value2)) partnerValues.add(v);
  // Numbers whatever the bigint parser, like the pairs batchAttributes reads from JSON.
  const pairs = rows.map((r) => ({ id: Number(r.id), source_attribute_id: Number(r.source_attribute_id), target_attribute_id: Number(r.target_attribute_id), match_type: r.match_type, value: r.value }));
  return { pairs, partnerValues: [...partnerValues] };
}

/**
 * Equal values and composite parts, reconciled per value: in each event the first attribute (lowest
 * id) carrying the value represents the event, and every two representatives form a pair. A value
 * found in more events than the cap, or excluded, has no pairs. So a value costs at most
 * cap × (cap - 1) / 2 pairs, however many copies of it the events hold. The attributes holding
 * a value are looked up value by value through the value1 and value2 indexes (`HOLDING`), whatever
 * the statistics say: on a table without statistics yet (a first large feed) the planner scanned the
 * whole table per value (a join on `value1 = v OR value2 = v`) or walked every event's attributes,
 * 2.3-4.6 s instead of about 50-100 ms per batch of 1,000 values at 100,000 attributes.
 *
 * One pass per value: its holders are read once, the representatives kept with the number of
 * events they stand for, and only values of 2 to cap events come back. The pairs are made here,
 * value by value, among at most cap representatives each: a join of all the batch's
 * representatives on the value was planned as a nested loop over all of them (500
 * representatives, 250,000 comparisons per batch of 5,000 shared-in-twenty values; quadratic in
 * the shared values of a batch).
 */
async function valuePairs(sql: Sql, values: string[], settings: CorrelationSettings): Promise<Match[]> {
  if (values.length === 0) return [];
  const { rows } = await sql.query<{ value: string; id: number; event_id: number; type: string }>(
    `WITH vals AS (SELECT DISTINCT v AS value FROM unnest($1::text[]) AS v WHERE NOT ${EXCLUDED("v")})
     SELECT d.value, r.id, r.event_id, r.type
       FROM vals d
       CROSS JOIN LATERAL (
         SELECT x.*, count(*) OVER () AS events
           FROM (SELECT DISTINCT ON (b.event_id) b.id, b.event_id, b.type
                   FROM ${HOLDING("d.value")} b JOIN events be ON be.id = b.event_id
                  WHERE ${ELIGIBLE("b", "be")}
                  ORDER BY b.event_id, b.id) x) r
      WHERE r.events BETWEEN 2 AND $4`,
    [values, NON_CORRELATING, PRIMARY_ONLY, settings.maxEventsPerValue],
  );
  const repsByValue = new Map<string, { id: number; event_id: number; type: string }[]>();
  for (const r of rows) {
    const rep = { id: Number(r.id), event_id: r.event_id, type: r.type };
    const reps = repsByValue.get(r.value);
    if (reps) reps.push(rep);
    else repsByValue.set(r.value, [rep]);
  }
  const matches: Match[] = [];
  for (const [value, reps] of repsByValue) {
    reps.sort((x, y) => x.event_id - y.event_id);
    for (let i = 0; i < reps.length; i++) {
      for (let j = i + 1; j < reps.length; j++) {
        const [s, t] = [reps[i], reps[j]];
        const matchType: MatchType = s.type.includes("|") || t.type.includes("|") ? "composite" : "term";
        if (settings.matchTypes.includes(matchType)) matches.push({ sourceId: s.id, targetId: t.id, sourceEventId: s.event_id, targetEventId: t.event_id, value, matchType });
      }
    }
  }
  return matches;
}

/** A constant list of types as SQL literals (the index predicate must be implied by the query's text, not a parameter's value). */
const typeList = (types: string[]) => types.map((t) => `'${t.replaceAll("'", "''")}'`).join(", ");
/**
 * The address types, as the predicate of attributes_address_spgist_idx lists them. Both lookups
 * name exactly this list: a narrower one is not implied by the predicate alone, and the planner
 * then ANDs the index with attributes_type_idx, reading every address's entry of it per lookup.
 */
const ADDRESS_TYPES = typeList(CIDR_TYPES);
/** The types whose stored networks do not correlate: their address is value2 (a domain|ip holds a host). */
const HOST_ONLY = CIDR_TYPES.filter((t) => rules.cidrTypes[t as keyof typeof rules.cidrTypes] !== "value1");
const NOT_HOST_ONLY = (alias: string) => (HOST_ONLY.length ? `${alias}.type NOT IN (${typeList(HOST_ONLY)})` : "TRUE");

/** A network around more stored addresses than this is read this far first: enough of them over cap events settles it. */
const NETWORK_PROBE = 1000;

interface CidrRow {
  source_id: number;
  target_id: number;
  source_event_id: number;
  target_event_id: number;
  value: string;
  /** The row is a network of the batch around a stored address (the network is the source). */
  around: boolean;
}

/**
 * Hosts inside networks, both ways: a host of the batch in a stored network, a network of the batch
 * around stored hosts. Each host and each network is looked up on its own through
 * attributes_address_spgist_idx (`>>`: the networks around a host, `<<`: the addresses inside a
 * network), whatever the statistics say (LATERAL ... OFFSET 0): reading every stored address for a
 * batch of networks made a blocklist over a large instance quadratic. The cast is the index's
 * expression, so it runs once per row the index finds, not once per stored row. A network's
 * addresses are read up to `limit` rows (null: all).
 */
async function cidrRows(sql: Sql, ids: number[], limit: number | null): Promise<CidrRow[]> {
  const { rows } = await sql.query<CidrRow>(
    `WITH src AS (
       SELECT a.id, a.event_id, ${ADDRESS_OF("a")} AS addr
         FROM unnest($1::bigint[]) AS i(id) CROSS JOIN LATERAL ${BY_ID("i.id")} a JOIN events e ON e.id = a.event_id
        WHERE a.type = ANY($3::text[]) AND ${ELIGIBLE("a", "e")}),
     hosts AS (SELECT * FROM src WHERE addr IS NOT NULL AND masklen(addr) = CASE family(addr) WHEN 4 THEN 32 ELSE 128 END
                 AND NOT ${EXCLUDED("host(addr)")}),
     nets AS (SELECT * FROM src WHERE addr IS NOT NULL AND masklen(addr) < CASE family(addr) WHEN 4 THEN 32 ELSE 128 END
                 AND NOT ${EXCLUDED("text(addr)")})
     SELECT h.id AS source_id, n.id AS target_id, h.event_id AS source_event_id, n.event_id AS target_event_id, text(n.addr) AS value, false AS around
       FROM hosts h CROSS JOIN LATERAL (
         SELECT b.id, b.event_id, ${ADDRESS_OF("b")} AS addr
           FROM attributes b JOIN events be ON be.id = b.event_id
          WHERE b.type IN (${ADDRESS_TYPES}) AND ${ADDRESS_OF("b")} >> h.addr AND ${NOT_HOST_ONLY("b")} AND strpos(b.value1, '/') > 0
            AND b.event_id <> h.event_id AND ${ELIGIBLE("b", "be")}
         OFFSET 0) n
     UNION ALL
     SELECT n.id, h.id, n.event_id, h.event_id, text(n.addr), true
       FROM nets n CROSS JOIN LATERAL (
         SELECT b.id, b.event_id
           FROM attributes b JOIN events be ON be.id = b.event_id
          WHERE b.type IN (${ADDRESS_TYPES}) AND ${ADDRESS_OF("b")} << n.addr
            AND masklen(${ADDRESS_OF("b")}) = CASE family(n.addr) WHEN 4 THEN 32 ELSE 128 END
            AND b.event_id <> n.event_id AND ${ELIGIBLE("b", "be")}
         OFFSET 0 LIMIT $4) h`,
    [ids, NON_CORRELATING, CIDR_TYPES, limit],
  );
  return rows;
}

/**
 * The CIDR pairs of the batch. A network around more events than the cap is as over-correlating as
 * a shared value: none of the pairs made through its text hold. Each network's addresses are read
 * `probe` + 1 rows at most first: when those already span cap other events the network is over the
 * cap whatever the rest holds (a /8 over a large instance stops there), and only a network cut short
 * below the cap is read again whole.
 */
async function cidrMatches(sql: Sql, ids: number[], settings: CorrelationSettings): Promise<Match[]> {
  if (ids.length === 0 || !settings.matchTypes.includes("cidr")) return [];
  const cap = settings.maxEventsPerValue;
  const probe = Math.max(NETWORK_PROBE, cap * 10);
  let rows = await cidrRows(sql, ids, probe + 1);
  const found = new Map<number, { rows: number; events: Set<number> }>();
  for (const r of rows.filter((x) => x.around)) {
    const n = found.get(r.source_id) ?? { rows: 0, events: new Set<number>() };
    n.rows++;
    n.events.add(r.target_event_id);
    found.set(r.source_id, n);
  }
  const cut = new Set([...found].filter(([, n]) => n.rows > probe && n.events.size < cap).map(([id]) => id));
  // Read again, `cut` (networks of the batch) yields only their own rows: a network is never a host.
  if (cut.size) rows = [...rows.filter((r) => !(r.around && cut.has(r.source_id))), ...(await cidrRows(sql, [...cut], null))];
  const eventsPerNetwork = new Map<string, Set<number>>();
  for (const r of rows) {
    const events = eventsPerNetwork.get(r.value) ?? new Set<number>();
    events.add(r.source_event_id).add(r.target_event_id);
    eventsPerNetwork.set(r.value, events);
  }
  return rows
    .filter((r) => eventsPerNetwork.get(r.value)!.size <= cap)
    .map((r) => ({ sourceId: r.source_id, targetId: r.target_id, sourceEventId: r.source_event_id, targetEventId: r.target_event_id, value: r.value, matchType: "cidr" as const }));
}

export const CORRELATION_CREATED = "attribute.correlation.created";
export const CORRELATION_DELETED = "attribute.correlation.deleted";

export interface BatchOutcome {
  created: PairRow[];
  removed: PairRow[];
  /** The change records of the created and removed pairs, ascending: their consumers are not enqueued yet. */
  changeIds: number[];
}

/**
 * Brings the stored pairs in line with the data as it is now, for every value the batch touches and
 * for the CIDR pairs of its attributes: pairs that no longer hold are removed, new ones inserted (the
 * unique index makes a concurrent insert of the same pair a no-op, so each pair is created, and
 * reported, once). A value over the cap loses all its pairs, also between attributes outside the batch.
 * `goneValues` are values of attributes deleted for good: another attribute of their event may now
 * represent it.
 */
export async function correlateBatch(sql: Sql, ids: number[], settings: CorrelationSettings, goneValues: string[] = []): Promise<BatchOutcome> {
  if (ids.length === 0 && goneValues.length === 0) return { created: [], removed: [], changeIds: [] };
  // The stored pairs to judge: those of the batch's attributes, and those under every value they
  // touch and every value of the attributes paired through those (each table probed once per id
  // or value: the pairs found by value carry their attributes' values).
  const batchRows = await batchAttributes(sql, ids);
  const touched = [...new Set([...batchRows.values, ...goneValues])];
  const byValue = await pairsByValue(sql, touched);
  const seen = new Set(touched);
  const partnerOnly = byValue.partnerValues.filter((v) => !seen.has(v));
  const values = [...touched, ...partnerOnly];
  const existingById = new Map<number, StoredPair>();
  for (const p of [...batchRows.pairs, ...byValue.pairs, ...(await pairsByValue(sql, partnerOnly)).pairs]) existingById.set(p.id, p);
  const existing = [...existingById.values()];

  const batch = new Set(ids);
  const wanted = new Map<string, Match>();
  for (const m of [...(await valuePairs(sql, values, settings)), ...(await cidrMatches(sql, batchRows.addressIds, settings))]) {
    // The attribute being correlated is the source: its followers learn of the pair.
    const oriented = batch.has(m.targetId) && !batch.has(m.sourceId)
      ? { ...m, sourceId: m.targetId, targetId: m.sourceId, sourceEventId: m.targetEventId, targetEventId: m.sourceEventId }
      : m;
    const key = pairKey(m.sourceId, m.targetId, m.matchType);
    if (!wanted.has(key)) wanted.set(key, oriented);
  }
  const stale = existing.filter((p) => !wanted.has(pairKey(p.source_attribute_id, p.target_attribute_id, p.match_type)));
  // A pair that holds through another value than the one stored (a value changed on both sides)
  // keeps its row and announcement; its value is brought up to date.
  const revalued: { id: number; value: string }[] = [];
  for (const p of existing) {
    const key = pairKey(p.source_attribute_id, p.target_attribute_id, p.match_type);
    const m = wanted.get(key);
    if (m && m.value !== p.value) revalued.push({ id: p.id, value: m.value });
    wanted.delete(key);
  }
  if (revalued.length) {
    await sql.query("UPDATE correlations c SET value = v.value FROM unnest($1::bigint[], $2::text[]) AS v(id, value) WHERE c.id = v.id", [
      revalued.map((r) => r.id),
      revalued.map((r) => r.value),
    ]);
  }

  let removed: PairRow[] = [];
  if (stale.length) {
    const del = await sql.query<PairRow>(
      "DELETE FROM correlations WHERE id = ANY($1::bigint[]) RETURNING id, source_attribute_id, target_attribute_id, match_type",
      [stale.map((p) => p.id)],
    );
    removed = del.rows;
  }
  const fresh = [...wanted.values()];
  if (fresh.length === 0 && removed.length === 0) return { created: [], removed, changeIds: [] };
  return { ...(await writePairs(sql, fresh, removed)), removed };
}

/** What a change record says of one side of a pair (`id` is an SQL expression), through the primary keys (OFFSET 0, as in `SIDE`). */
const RECORD_SIDE = (id: string) => `(
    SELECT a.uuid, a.type, a.value, e.uuid AS event_uuid FROM attributes a JOIN events e ON e.id = a.event_id WHERE a.id = ${id} OFFSET 0)`;

/**
 * The new pairs and the change records of the new and the removed ones, in one statement: the
 * records are made from the rows the insert returns and the sides' attributes and events (one
 * primary-key probe each, whatever the statistics say), so nothing travels back and forth per pair.
 * Reading each pair's details back and sending its record as JSON cost more than the insert.
 * Records of new pairs first, by pair id, then those of removed pairs (a removed pair whose
 * attribute is gone has none, its documents went by uuid): each part is sorted on its narrow rows
 * and read in that order through the primary keys, as a sort of the built records spilled to disk
 * (25 MB for 53,000 pairs).
 */
async function writePairs(sql: Sql, fresh: Match[], removed: PairRow[]): Promise<{ created: PairRow[]; changeIds: number[] }> {
  const { rows } = await sql.query<{ created: [number, number, number, MatchType][]; changes: number[] }>(
    `WITH ins AS (
       INSERT INTO correlations (source_attribute_id, target_attribute_id, source_event_id, target_event_id, match_type, value)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[])
       ON CONFLICT ((LEAST(source_attribute_id, target_attribute_id)), (GREATEST(source_attribute_id, target_attribute_id)), match_type) DO NOTHING
       RETURNING id, source_attribute_id, target_attribute_id, match_type, value),
     records AS (
       INSERT INTO change_records (kind, entity_type, entity_uuid, event_uuid, actor_type, payload)
       SELECT kind, 'attribute', entity_uuid, event_uuid, 'system', payload FROM (
         SELECT '${CORRELATION_CREATED}' AS kind, s.uuid AS entity_uuid, s.event_uuid,
                -- Spec 6.3's correlation payload, plus what identifies the pair.
                jsonb_build_object('correlation_id', c.id, 'match_type', c.match_type, 'value', c.value,
                                   'source_attribute_uuid', s.uuid, 'source_event_uuid', s.event_uuid, 'target_event_uuid', t.event_uuid,
                                   'target_attribute_uuid', t.uuid, 'target_attribute_type', t.type, 'target_attribute_value', t.value) AS payload
           FROM (SELECT * FROM ins ORDER BY id) c CROSS JOIN LATERAL ${RECORD_SIDE("c.source_attribute_id")} s CROSS JOIN LATERAL ${RECORD_SIDE("c.target_attribute_id")} t
         UNION ALL
         SELECT '${CORRELATION_DELETED}', s.uuid, s.event_uuid,
                jsonb_build_object('correlation_id', g.id, 'match_type', g.match_type, 'source_attribute_uuid', s.uuid, 'target_attribute_uuid', t.uuid)
           FROM (SELECT * FROM unnest($7::bigint[], $8::bigint[], $9::bigint[], $10::text[]) AS g(id, source_attribute_id, target_attribute_id, match_type) ORDER BY id) g
           CROSS JOIN LATERAL ${RECORD_SIDE("g.source_attribute_id")} s CROSS JOIN LATERAL ${RECORD_SIDE("g.target_attribute_id")} t) r
       RETURNING id)
     SELECT (SELECT COALESCE(json_agg(json_build_array(id, source_attribute_id, target_attribute_id, match_type)), '[]') FROM ins) AS created,
            (SELECT COALESCE(json_agg(id ORDER BY id), '[]') FROM records) AS changes`,
    [
      fresh.map((m) => m.sourceId),
      fresh.map((m) => m.targetId),
      fresh.map((m) => m.sourceEventId),
      fresh.map((m) => m.targetEventId),
      fresh.map((m) => m.matchType),
      fresh.map((m) => m.value),
      removed.map((p) => p.id),
      removed.map((p) => p.source_attribute_id),
      removed.map((p) => p.target_attribute_id),
      removed.map((p) => p.match_type),
    ],
  );
  const created = rows[0].created.map(([id, source, target, matchType]) => ({ id, source_attribute_id: source, target_attribute_id: target, match_type: matchType }));
  return { created, changeIds: rows[0].changes };
}

/** What change records and documents say about a pair: both sides with their events. */
export interface PairDetail {
  id: number;
  match_type: MatchType;
  value: string;
  created_at: Date;
  source_attribute_uuid: string;
  source_attribute_type: string;
  source_attribute_value: string;
  source_event_uuid: string;
  source_event_distribution: number;
  source_event_org_id: number;
  source_event_orgc_id: number;
  source_event_sharing_group_id: number | null;
  source_attribute_distribution: number;
  source_attribute_sharing_group_id: number | null;
  /** Null when the attribute is outside any object. */
  source_object_distribution: number | null;
  source_object_sharing_group_id: number | null;
  target_attribute_uuid: string;
  target_attribute_type: string;
  target_attribute_value: string;
  target_event_uuid: string;
  target_event_distribution: number;
  target_event_org_id: number;
  target_event_orgc_id: number;
  target_event_sharing_group_id: number | null;
  target_attribute_distribution: number;
  target_attribute_sharing_group_id: number | null;
  target_object_distribution: number | null;
  target_object_sharing_group_id: number | null;
}

/**
 * One side of a pair (`id` is an SQL expression): the attribute with its event and object, read
 * through their primary keys whatever the statistics say (OFFSET 0). A join of `correlations` with
 * `attributes` on a freshly loaded table (no statistics yet) was planned as two hash joins over the
 * whole attributes table, so each batch cost a scan of it: quadratic over a large feed.
 */
const SIDE = (id: string) => `(
    SELECT a.uuid::text AS attribute_uuid, a.type AS attribute_type, a.value AS attribute_value, a.distribution AS attribute_distribution,
           a.sharing_group_id AS attribute_sharing_group_id, e.uuid::text AS event_uuid, e.distribution AS event_distribution,
           e.org_id AS event_org_id, e.orgc_id AS event_orgc_id, e.sharing_group_id AS event_sharing_group_id,
           o.distribution AS object_distribution, o.sharing_group_id AS object_sharing_group_id
      FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
     WHERE a.id = ${id} OFFSET 0)`;

/** The details of the pairs `pairs` (an SQL row source of `correlations` rows, alias-free). */
const PAIR_DETAIL = (pairs: string) => `
  SELECT c.id, c.match_type, c.value, c.created_at,
         s.attribute_uuid AS source_attribute_uuid, s.attribute_type AS source_attribute_type, s.attribute_value AS source_attribute_value,
         s.event_uuid AS source_event_uuid, s.event_distribution AS source_event_distribution, s.event_org_id AS source_event_org_id,
         s.event_orgc_id AS source_event_orgc_id, s.event_sharing_group_id AS source_event_sharing_group_id,
         s.attribute_distribution AS source_attribute_distribution, s.attribute_sharing_group_id AS source_attribute_sharing_group_id,
         s.object_distribution AS source_object_distribution, s.object_sharing_group_id AS source_object_sharing_group_id,
         t.attribute_uuid AS target_attribute_uuid, t.attribute_type AS target_attribute_type, t.attribute_value AS target_attribute_value,
         t.event_uuid AS target_event_uuid, t.event_distribution AS target_event_distribution, t.event_org_id AS target_event_org_id,
         t.event_orgc_id AS target_event_orgc_id, t.event_sharing_group_id AS target_event_sharing_group_id,
         t.attribute_distribution AS target_attribute_distribution, t.attribute_sharing_group_id AS target_attribute_sharing_group_id,
         t.object_distribution AS target_object_distribution, t.object_sharing_group_id AS target_object_sharing_group_id
    FROM ${pairs} c
    CROSS JOIN LATERAL ${SIDE("c.source_attribute_id")} s
    CROSS JOIN LATERAL ${SIDE("c.target_attribute_id")} t`;

export async function pairDetails(sql: Sql, ids: number[]): Promise<PairDetail[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<PairDetail>(
    `${PAIR_DETAIL("(SELECT c.* FROM unnest($1::bigint[]) AS i(id) CROSS JOIN LATERAL (SELECT * FROM correlations WHERE id = i.id OFFSET 0) c)")} ORDER BY c.id`,
    [ids],
  );
  return rows;
}

/** Every pair that involves one of these attributes (by uuid), each once. */
export async function pairsOfAttributes(sql: Sql, attributeUuids: string[]): Promise<PairDetail[]> {
  if (attributeUuids.length === 0) return [];
  const { rows } = await sql.query<PairDetail>(
    PAIR_DETAIL(`(SELECT DISTINCT ON (p.id) p.* FROM unnest($1::uuid[]) AS u(uuid)
                   CROSS JOIN LATERAL (SELECT x.id FROM attributes x WHERE x.uuid = u.uuid OFFSET 0) x
                   CROSS JOIN LATERAL ${PAIRS_OF("x.id")} p)`),
    [attributeUuids],
  );
  return rows;
}

/** Uuids of attributes (for change records of removed pairs: both attributes still exist then). */
export async function attributeUuidsById(sql: Sql, ids: number[]): Promise<Map<number, { uuid: string; eventUuid: string }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: number; uuid: string; event_uuid: string }>(
    "SELECT a.id, a.uuid::text, e.uuid::text AS event_uuid FROM attributes a JOIN events e ON e.id = a.event_id WHERE a.id = ANY($1::bigint[])",
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { uuid: r.uuid, eventUuid: r.event_uuid }]));
}

export async function correlationSettings(sql: Sql, defaults: { max_correlations_per_value: number; match_types: MatchType[] }): Promise<CorrelationSettings> {
  const { rows } = await sql.query<{ value: { max_correlations_per_value?: number; match_types?: MatchType[] } }>(
    "SELECT value FROM runtime_settings WHERE namespace = 'correlations'",
  );
  const v = { ...defaults, ...(rows[0]?.value ?? {}) };
  return { maxEventsPerValue: v.max_correlations_per_value, matchTypes: v.match_types };
}
