import type pg from "pg";
import type { z } from "zod";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import type { Taxonomy, TaxonomyEntry, TaxonomyPredicate } from "../../generated/prisma/client.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import { offsetOf, pageOf, type Page } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { taxonomiesOfTagsContract, taxonomyFlagsContract, taxonomyListContract, type TaxonomyFlags } from "./taxonomies.contracts.ts";
import { TaxonomiesRepository, type TagIndexTaxonomy, type TagParts, type TagTaxonomy } from "./taxonomies.repository.ts";
import { loadTaxonomySource, type MachineTag } from "./taxonomy-source.ts";

/** Serialises imports and enable/disable, across API processes. */
const TAXONOMY_LOCK = 727011;
const TX_OPTIONS = { maxWait: 10_000, timeout: 120_000 };
/** The colour of a taxonomy tag whose predicate and entry have none. */
export const TAXONOMY_TAG_COLOUR = "#ffffff";
/** MISP's machine tag (Taxonomy::splitTagToComponents): `namespace:predicate` or `namespace:predicate="value"`, no `:`, `=` or `"` inside the parts. */
const MISP_MACHINE_TAG = /^([^:="]+):([^:="]+)(="([^"]+)")?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type TaxonomyQuery = { include?: Prisma.TaxonomyInclude; select?: Prisma.TaxonomySelect };
export type TaxonomyCounted = Taxonomy & { predicateCount: number; entryCount: number };
export type TaxonomyWithPredicates = Taxonomy & { predicates: (TaxonomyPredicate & { entries: TaxonomyEntry[] })[] };
export type TaxonomyPage<T> = Page<T> & { query: { enabled: boolean | null; filter: string | null } };

export interface TaxonomyUpdateResult {
  taxonomies: number;
  taxonomies_created: number;
  predicates: number;
  entries: number;
  took_ms: number;
}

/** `namespace:predicate`, MISP's tag for a predicate. */
export const predicateTagName = (namespace: string, predicate: string) => `${namespace}:${predicate}`;
/** `namespace:predicate="entry"`, MISP's tag for an entry. */
export const entryTagName = (namespace: string, predicate: string, entry: string) => `${namespace}:${predicate}="${entry}"`;

const PREDICATE_ORDER: Prisma.TaxonomyPredicateOrderByWithRelationInput[] = [{ value: "asc" }, { id: "asc" }];
const ENTRY_ORDER: Prisma.TaxonomyEntryOrderByWithRelationInput[] = [{ value: "asc" }, { id: "asc" }];
export const WITH_PREDICATES = { predicates: { orderBy: PREDICATE_ORDER, include: { entries: { orderBy: ENTRY_ORDER } } } } as const;

/**
 * Taxonomies (MISP's machine-tag vocabularies: tlp, pap, admiralty-scale, ...): import from
 * TAXONOMIES_SOURCE, browse, enable (which creates their tags and enforces their exclusivity when
 * tagging) and disable. Taxonomies are shared by every organisation: importing and changing them
 * need `taxonomies:update` and `taxonomies:admin`; reading needs `taxonomies:read`.
 */
export class TaxonomiesService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /**
   * Imports every taxonomy of TAXONOMIES_SOURCE in one transaction: files are read and validated
   * first, then each taxonomy is upserted by namespace (enabled, required and highlighted are kept),
   * its predicates and entries by value; predicates and entries no longer published are removed.
   */
  async update(p: Principal | null): Promise<TaxonomyUpdateResult> {
    authorize(p, "taxonomies:update", "taxonomies:admin");
    const started = performance.now();
    const source = await loadTaxonomySource(this.ctx.config.TAXONOMIES_SOURCE);
    const totals = { taxonomies_created: 0, predicates: 0, entries: 0, tags_created: 0 };
    await this.ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${TAXONOMY_LOCK})`);
      for (const t of source.taxonomies) {
        const row = await upsertTaxonomy(tx, t);
        if (row.inserted) totals.taxonomies_created++;
        const counts = await replaceContent(tx, row.id, t);
        totals.predicates += counts.predicates;
        totals.entries += counts.entries;
        if (row.enabled) totals.tags_created += (await ensureTags(tx, row.id)).created;
      }
      await this.audit.record(p, {
        action: "taxonomy.updated",
        resourceType: "taxonomy",
        metadata: { source: source.kind, taxonomies: source.taxonomies.length, ...totals },
      }, tx);
    }, TX_OPTIONS);
    return {
      taxonomies: source.taxonomies.length,
      taxonomies_created: totals.taxonomies_created,
      predicates: totals.predicates,
      entries: totals.entries,
      took_ms: Math.round(performance.now() - started),
    };
  }

  /**
   * The taxonomy of each machine tag, as MISP's Taxonomy::getTaxonomyForTag (tags/search): its
   * namespace, predicate and value compared case-insensitively, the predicate with the entries whose
   * value is the tag's (none may match: MISP still answers the predicate), disabled taxonomies too.
   * One statement for the whole list; tags MISP would not split, or of no known predicate, are left out.
   */
  async taxonomiesOfTags(p: Principal | null, given: z.input<typeof taxonomiesOfTagsContract>): Promise<Map<string, TagTaxonomy>> {
    authorize(p, "taxonomies:read");
    const { names } = parseInput(taxonomiesOfTagsContract, given);
    const parts = [...new Set(names)].flatMap((name): TagParts[] => {
      const m = MISP_MACHINE_TAG.exec(name);
      return m ? [{ name, namespace: m[1]!, predicate: m[2]!, value: m[4] ?? null }] : [];
    });
    return new TaxonomiesRepository(this.ctx.db.pool).forTags(parts);
  }

  /**
   * The enabled taxonomy of each tag, as MISP's tags/index adds it (the taxonomy whose namespace the
   * name starts with, and the tag's expanded form), in one statement for the whole list. MISP tests
   * the namespace as a bare prefix (so its `misp` taxonomy would claim `misp-galaxy:` tags); here the
   * namespace must be followed by the colon that ends it.
   */
  async enabledTaxonomiesOfTags(p: Principal | null, given: z.input<typeof taxonomiesOfTagsContract>): Promise<Map<string, TagIndexTaxonomy>> {
    authorize(p, "taxonomies:read");
    const { names } = parseInput(taxonomiesOfTagsContract, given);
    return new TaxonomiesRepository(this.ctx.db.pool).enabledForTags(names);
  }

  /** The peer's `GET /taxonomies/`: P2 page ordered by namespace, with predicate and entry counts. */
  async list(p: Principal | null, given: z.input<typeof taxonomyListContract>, query: TaxonomyQuery = {}): Promise<TaxonomyPage<TaxonomyCounted>> {
    authorize(p, "taxonomies:read");
    const q = parseInput(taxonomyListContract, given);
    const filter = q.filter === undefined || q.filter === "" ? null : q.filter;
    const where: Prisma.TaxonomyWhereInput = {
      ...(filter === null ? {} : { namespace: { contains: likeLiteral(filter), mode: "insensitive" } }),
      ...(q.enabled === undefined ? {} : { enabled: q.enabled }),
    };
    const { prisma, pool } = this.ctx.db;
    const [rows, total] = await Promise.all([
      prisma.taxonomy.findMany({ ...query, where, orderBy: [{ namespace: "asc" }, { id: "asc" }], take: q.size, skip: offsetOf(q) }),
      prisma.taxonomy.count({ where }),
    ]);
    const ids = rows.map((r) => r.id);
    const counts = new Map<number, { predicates: number; entries: number }>();
    if (ids.length) {
      const { rows: c } = await pool.query<{ id: number; predicates: number; entries: number }>(
        `SELECT p.taxonomy_id AS id, count(DISTINCT p.id)::int AS predicates, count(e.id)::int AS entries
           FROM taxonomy_predicates p LEFT JOIN taxonomy_entries e ON e.taxonomy_predicate_id = p.id
          WHERE p.taxonomy_id = ANY($1::int[]) GROUP BY p.taxonomy_id`,
        [ids],
      );
      for (const r of c) counts.set(r.id, { predicates: r.predicates, entries: r.entries });
    }
    const items = rows.map((r) => ({ ...r, predicateCount: counts.get(r.id)?.predicates ?? 0, entryCount: counts.get(r.id)?.entries ?? 0 }));
    return { ...pageOf(items, total, q), query: { enabled: q.enabled ?? null, filter } };
  }

  /** One taxonomy by id or uuid, with its predicates and their entries (ordered by value). */
  async get(p: Principal | null, idOrUuid: number | string): Promise<TaxonomyWithPredicates> {
    authorize(p, "taxonomies:read");
    const t = await this.ctx.db.prisma.taxonomy.findUnique({ where: taxonomyKey(idOrUuid), include: WITH_PREDICATES });
    if (!t) throw errors.notFound("Taxonomy");
    return t;
  }

  /** One taxonomy by id or uuid, read with a GraphQL selection. */
  async getSelected(p: Principal | null, idOrUuid: number | string, query: TaxonomyQuery = {}): Promise<Taxonomy> {
    authorize(p, "taxonomies:read");
    const t = await this.ctx.db.prisma.taxonomy.findUnique({ ...query, where: taxonomyKey(idOrUuid) });
    if (!t) throw errors.notFound("Taxonomy");
    return t;
  }

  /**
   * `PATCH /taxonomies/{id}`: only the keys given change. Enabling creates one tag per entry (and
   * per predicate without entries), showing again the ones a disable hid; disabling hides them.
   */
  async setFlags(p: Principal | null, id: number, given: z.input<typeof taxonomyFlagsContract>): Promise<TaxonomyWithPredicates> {
    authorize(p, "taxonomies:update", "taxonomies:admin");
    const flags: TaxonomyFlags = parseInput(taxonomyFlagsContract, given);
    await this.ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${TAXONOMY_LOCK})`);
      const before = await tx.taxonomy.findUnique({ where: { id } });
      if (!before) throw errors.notFound("Taxonomy");
      const data = {
        enabled: flags.enabled ?? before.enabled,
        required: flags.required ?? before.required,
        highlighted: flags.highlighted ?? before.highlighted,
      };
      const changed = data.enabled !== before.enabled || data.required !== before.required || data.highlighted !== before.highlighted;
      if (changed) await tx.taxonomy.update({ where: { id }, data });
      let tags: Record<string, number> = {};
      if (flags.enabled === true) tags = await ensureTags(tx, id);
      else if (flags.enabled === false) tags = { hidden: await hideTags(tx, id) };
      if (changed || Object.values(tags).some((n) => n > 0)) {
        await this.audit.record(p, {
          action: data.enabled === before.enabled ? "taxonomy.changed" : data.enabled ? "taxonomy.enabled" : "taxonomy.disabled",
          resourceType: "taxonomy",
          resourceId: id,
          metadata: { namespace: before.namespace, ...data, ...tags },
        }, tx);
      }
    }, TX_OPTIONS);
    return this.get(p, id);
  }
}

const taxonomyKey = (idOrUuid: number | string): Prisma.TaxonomyWhereUniqueInput => {
  if (typeof idOrUuid === "number") return { id: idOrUuid };
  if (!UUID.test(idOrUuid)) throw errors.notFound("Taxonomy");
  return { uuid: idOrUuid.toLowerCase() };
};

type Tx = Prisma.TransactionClient;

async function upsertTaxonomy(tx: Tx, t: MachineTag): Promise<{ id: number; enabled: boolean; inserted: boolean }> {
  const rows = await tx.$queryRawUnsafe<{ id: number; enabled: boolean; inserted: boolean }[]>(
    `INSERT INTO taxonomies AS t (uuid, namespace, description, expanded, version, exclusive, updated_at)
     VALUES ($1::uuid, $2::text, $3::text, $4::text, $5::int, $6::boolean, now())
     ON CONFLICT (namespace) DO UPDATE SET uuid = EXCLUDED.uuid, description = EXCLUDED.description, expanded = EXCLUDED.expanded,
       version = EXCLUDED.version, exclusive = EXCLUDED.exclusive, updated_at = now()
     RETURNING t.id, t.enabled, (xmax = 0) AS inserted`,
    t.uuid ?? null,
    t.namespace,
    t.description,
    t.expanded ?? null,
    t.version,
    t.exclusive,
  );
  return rows[0];
}

/** The taxonomy's predicates and entries as the file has them: three statements for predicates, three for entries. */
async function replaceContent(tx: Tx, taxonomyId: number, t: MachineTag): Promise<{ predicates: number; entries: number }> {
  const ps = t.predicates;
  await tx.$executeRawUnsafe(`DELETE FROM taxonomy_predicates WHERE taxonomy_id = $1::int AND NOT (value = ANY($2::text[]))`, taxonomyId, ps.map((x) => x.value));
  const ids = ps.length
    ? await tx.$queryRawUnsafe<{ id: number; value: string }[]>(
        `INSERT INTO taxonomy_predicates AS p (taxonomy_id, uuid, value, expanded, description, colour, numerical_value, exclusive, tag_name)
         SELECT $1::int, s.* FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::boolean[], $9::text[])
           AS s(uuid, value, expanded, description, colour, numerical_value, exclusive, tag_name)
         ON CONFLICT (taxonomy_id, value) DO UPDATE SET uuid = EXCLUDED.uuid, expanded = EXCLUDED.expanded, description = EXCLUDED.description,
           colour = EXCLUDED.colour, numerical_value = EXCLUDED.numerical_value, exclusive = EXCLUDED.exclusive, tag_name = EXCLUDED.tag_name
         RETURNING p.id, p.value`,
        taxonomyId,
        ps.map((x) => x.uuid ?? null),
        ps.map((x) => x.value),
        ps.map((x) => x.expanded ?? null),
        ps.map((x) => x.description ?? null),
        ps.map((x) => x.colour ?? null),
        ps.map((x) => x.numerical_value ?? null),
        ps.map((x) => x.exclusive ?? false),
        ps.map((x) => predicateTagName(t.namespace, x.value)),
      )
    : [];
  const predicateId = new Map(ids.map((r) => [r.value, r.id]));
  const entries = t.values.flatMap((v) => v.entry.map((e) => ({ ...e, predicate: v.predicate, predicateId: predicateId.get(v.predicate)! })));
  const pairs = entries.map((e) => `${e.predicateId}:${e.value}`);
  await tx.$executeRawUnsafe(
    `DELETE FROM taxonomy_entries e USING taxonomy_predicates p
      WHERE p.id = e.taxonomy_predicate_id AND p.taxonomy_id = $1::int AND NOT ((e.taxonomy_predicate_id::text || ':' || e.value) = ANY($2::text[]))`,
    taxonomyId,
    pairs,
  );
  if (entries.length) {
    await tx.$executeRawUnsafe(
      `INSERT INTO taxonomy_entries AS e (taxonomy_predicate_id, uuid, value, expanded, description, colour, numerical_value, tag_name)
       SELECT s.* FROM unnest($1::int[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[])
         AS s(taxonomy_predicate_id, uuid, value, expanded, description, colour, numerical_value, tag_name)
       ON CONFLICT (taxonomy_predicate_id, value) DO UPDATE SET uuid = EXCLUDED.uuid, expanded = EXCLUDED.expanded, description = EXCLUDED.description,
         colour = EXCLUDED.colour, numerical_value = EXCLUDED.numerical_value, tag_name = EXCLUDED.tag_name`,
      entries.map((e) => e.predicateId),
      entries.map((e) => e.uuid ?? null),
      entries.map((e) => e.value),
      entries.map((e) => e.expanded ?? null),
      entries.map((e) => e.description ?? null),
      entries.map((e) => e.colour ?? null),
      entries.map((e) => e.numerical_value ?? null),
      entries.map((e) => entryTagName(t.namespace, e.predicate, e.value)),
    );
  }
  return { predicates: ps.length, entries: entries.length };
}

/** The taxonomy's tags: one per entry, one per predicate without entries, with their colours and numerical values. */
const TAG_SOURCE = `
  SELECT p.tag_name, coalesce(p.colour, $2::text) AS colour, p.numerical_value FROM taxonomy_predicates p
   WHERE p.taxonomy_id = $1::int AND NOT EXISTS (SELECT 1 FROM taxonomy_entries x WHERE x.taxonomy_predicate_id = p.id)
  UNION ALL
  SELECT e.tag_name, coalesce(e.colour, p.colour, $2::text), e.numerical_value FROM taxonomy_entries e
    JOIN taxonomy_predicates p ON p.id = e.taxonomy_predicate_id WHERE p.taxonomy_id = $1::int`;

async function ensureTags(tx: Tx, taxonomyId: number): Promise<{ created: number; unhidden: number }> {
  const rows = await tx.$queryRawUnsafe<{ created: number; unhidden: number }[]>(
    `WITH up AS (
       INSERT INTO tags AS t (name, colour, exportable, hide_tag, is_galaxy, numerical_value)
       SELECT DISTINCT ON (s.tag_name) s.tag_name, s.colour, true, false, false, s.numerical_value FROM (${TAG_SOURCE}) s
       ON CONFLICT (name) DO UPDATE SET hide_tag = false WHERE t.hide_tag AND NOT t.is_galaxy
       RETURNING (xmax = 0) AS inserted)
     SELECT (count(*) FILTER (WHERE inserted))::int AS created, (count(*) FILTER (WHERE NOT inserted))::int AS unhidden FROM up`,
    taxonomyId,
    TAXONOMY_TAG_COLOUR,
  );
  return { created: Number(rows[0].created), unhidden: Number(rows[0].unhidden) };
}

async function hideTags(tx: Tx, taxonomyId: number): Promise<number> {
  return tx.$executeRawUnsafe(
    `UPDATE tags t SET hide_tag = true WHERE NOT t.is_galaxy AND NOT t.hide_tag AND t.name IN (SELECT s.tag_name FROM (${TAG_SOURCE}) s)`,
    taxonomyId,
    TAXONOMY_TAG_COLOUR,
  );
}

// ---- exclusivity, for the tagging of events and attributes ----

interface KnownTag {
  key: string;
  taxonomyId: number;
  namespace: string;
  taxonomyExclusive: boolean;
  predicateId: number;
  predicate: string;
  predicateExclusive: boolean;
  entryId: number | null;
}

/**
 * Refuses (422 at `loc`) a tag that an exclusive ENABLED taxonomy does not allow next to the tags
 * the entity already carries: another tag of an exclusive taxonomy (`tlp:red` next to `tlp:green`),
 * or another entry of an exclusive predicate. Names are compared case-insensitively; tags that are
 * not a predicate or entry of an enabled taxonomy are free. At most one statement, and none unless
 * the entity already carries a tag of the new tag's namespace.
 */
export async function checkExclusiveTags(
  db: Pick<pg.PoolClient, "query">,
  newTag: string,
  existingTagNames: readonly string[],
  loc: (string | number)[] = ["tag"],
): Promise<void> {
  const key = newTag.toLowerCase();
  const colon = key.indexOf(":");
  if (colon <= 0) return;
  // Only tags of the same namespace can conflict: without one on the entity, no statement at all.
  const namespace = key.slice(0, colon);
  const others = [...new Set(existingTagNames.map((n) => n.toLowerCase()))].filter((n) => n !== key && n.startsWith(`${namespace}:`));
  if (others.length === 0) return;
  const { rows } = await db.query<KnownTag>(
    `SELECT lower(p.tag_name) AS key, t.id AS "taxonomyId", t.namespace, t.exclusive AS "taxonomyExclusive",
            p.id AS "predicateId", p.value AS predicate, p.exclusive AS "predicateExclusive", NULL::int AS "entryId"
       FROM taxonomies t JOIN taxonomy_predicates p ON p.taxonomy_id = t.id
      WHERE t.enabled AND lower(t.namespace) = $1 AND lower(p.tag_name) = ANY($2::text[])
     UNION ALL
     SELECT lower(e.tag_name), t.id, t.namespace, t.exclusive, p.id, p.value, p.exclusive, e.id
       FROM taxonomies t JOIN taxonomy_predicates p ON p.taxonomy_id = t.id JOIN taxonomy_entries e ON e.taxonomy_predicate_id = p.id
      WHERE t.enabled AND lower(t.namespace) = $1 AND lower(e.tag_name) = ANY($2::text[])`,
    [namespace, [key, ...others]],
  );
  const known = new Map(rows.map((r) => [r.key, r]));
  const mine = known.get(key);
  if (!mine) return;
  for (const name of existingTagNames) {
    const other = known.get(name.toLowerCase());
    if (!other || other.key === key || other.taxonomyId !== mine.taxonomyId) continue;
    if (mine.taxonomyExclusive) {
      throw errors.invalidInput(loc, `${newTag} conflicts with ${name}, already attached: the taxonomy ${mine.namespace} is exclusive (one of its tags at most)`, newTag);
    }
    if (mine.predicateExclusive && mine.entryId !== null && other.predicateId === mine.predicateId) {
      throw errors.invalidInput(loc, `${newTag} conflicts with ${name}, already attached: the predicate ${mine.namespace}:${mine.predicate} is exclusive (one of its entries at most)`, newTag);
    }
  }
}
