import type { z } from "zod";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import type { Galaxy, GalaxyCluster } from "../../generated/prisma/client.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { ATTACK_PATTERN_TYPE, loadGalaxySource, type GalaxyBundle } from "./galaxy-source.ts";
import { containsPattern, likeLiteral } from "../../platform/db/like.ts";
import {
  attackPatternQueryContract,
  clusterListContract,
  galaxyFlagsContract,
  galaxyListContract,
  type ClusterListQuery,
  type GalaxyFlags,
} from "./galaxies.contracts.ts";

export { P2_DEFAULT_SIZE, P2_MAX_SIZE } from "./galaxies.contracts.ts";
export const GALAXY_TAG_COLOUR = "#BBBBBB";
export const MAX_ATTACK_PATTERNS = 1000;
export const MAX_RESOLVE_TOKENS = 1000;
/** Serialises imports and enable/disable, across API processes. */
const GALAXY_LOCK = 727010;
const TX_OPTIONS = { maxWait: 10_000, timeout: 120_000 };

export type GalaxyWithClusters = Galaxy & { clusters: GalaxyCluster[] };
export type P2Page<T> = Page<T> & { query: { filter: string | null } };

/** The plugin's selection for Galaxy / GalaxyCluster rows (GraphQL), spread into the service's own reads. */
export type GalaxyQuery = { include?: Prisma.GalaxyInclude; select?: Prisma.GalaxySelect };
export type ClusterQuery = { include?: Prisma.GalaxyClusterInclude; select?: Prisma.GalaxyClusterSelect };

export interface GalaxyUpdateResult {
  galaxies: number;
  clusters_created: number;
  clusters_updated: number;
  clusters_unchanged: number;
  took_ms: number;
}

export interface AttackPattern {
  uuid: string;
  value: string;
  description: string;
  external_id: string | null;
}

export interface ResolvedClusters {
  /** Matching clusters of the imported and enabled mitre-attack-pattern galaxy, each once. */
  clusters: GalaxyCluster[];
  /** Tokens (trimmed, as given) that matched nothing: all of them unless `galaxy` is `ready`. */
  unresolved: string[];
  galaxy: "ready" | "not_imported" | "disabled";
}

const GALAXY_COLUMNS = `g.id, g.uuid, g.name, g.type, g.description, g.version, g.icon, g.namespace,
  g.kill_chain_order AS "killChainOrder", g.enabled, g.local_only AS "localOnly", g."default",
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

const CLUSTER_COLUMNS = `c.id, c.uuid, c.galaxy_id AS "galaxyId", c.collection_uuid AS "collectionUuid", c.type, c.value,
  c.tag_name AS "tagName", c.description, c.source, c.authors, c.version, c.meta, c.related, c.external_ids AS "externalIds"`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TAG_PREFIX = "misp-galaxy:";

/** `misp-galaxy:<galaxy type>="<cluster value>"`, MISP's tag for a cluster. */
export const clusterTagName = (galaxyType: string, value: string) => `${TAG_PREFIX}${galaxyType}="${value}"`;

/** `meta.external_id` (a string or a list) upper-cased, trimmed, without duplicates. */
export function externalIdsOf(meta: Record<string, unknown>): string[] {
  const raw = meta.external_id;
  const list = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.filter((v): v is string => typeof v === "string") : [];
  return [...new Set(list.map((v) => v.trim().toUpperCase()).filter(Boolean))];
}

/**
 * Splits a fw-attack-pattern hunt query into tokens: one per line and per comma, except commas
 * inside double quotes (cluster values, hence full tag names, can hold commas).
 */
export function splitAttackPatternQuery(query: string): string[] {
  const tokens: string[] = [];
  for (const line of query.split(/\r?\n/)) {
    let current = "";
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      if (ch === "," && !quoted) {
        tokens.push(current);
        current = "";
      } else {
        current += ch;
      }
    }
    tokens.push(current);
  }
  return [...new Set(tokens.map((t) => t.trim()).filter(Boolean))];
}

/** The clusters' order on every read: by value, then id. */
export const CLUSTER_ORDER: Prisma.GalaxyClusterOrderByWithRelationInput[] = [{ value: "asc" }, { id: "asc" }];

const emptyAsNull = (s: string | null | undefined) => (s === undefined || s === null || s === "" ? null : s);

/**
 * Galaxies (MISP's cluster catalogues, ATT&CK first among them): import from GALAXY_SOURCE,
 * browse, enable (which creates one tag per cluster) and resolve technique codes for hunts. Galaxies
 * and their tags are shared by every organisation: importing, enabling and disabling need `galaxies:admin`.
 */
export class GalaxiesService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /**
   * Imports every galaxy of GALAXY_SOURCE in one transaction: files are read and validated first,
   * then each galaxy and its clusters are upserted by uuid with one statement each. Rows whose
   * content is unchanged are not written at all, so a second run with the same files changes nothing.
   */
  async update(p: Principal | null): Promise<GalaxyUpdateResult> {
    authorize(p, "galaxies:update", "galaxies:admin");
    const started = performance.now();
    const knownNames = async () =>
      (await this.ctx.db.pool.query<{ type: string }>("SELECT DISTINCT type FROM galaxies ORDER BY type")).rows.map((r) => r.type);
    const source = await loadGalaxySource(this.ctx.config.GALAXY_SOURCE, knownNames);
    const totals = { galaxies_created: 0, galaxies_updated: 0, clusters_created: 0, clusters_updated: 0, clusters_unchanged: 0, tags_created: 0 };
    await this.ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${GALAXY_LOCK})`);
      for (const bundle of source.bundles) {
        const galaxy = await upsertGalaxy(tx, bundle);
        const clusters = await upsertClusters(tx, galaxy.id, bundle);
        const changedClusters = clusters.created + clusters.updated;
        if (galaxy.inserted) totals.galaxies_created++;
        else if (galaxy.changed || changedClusters > 0) totals.galaxies_updated++;
        if (!galaxy.changed && changedClusters > 0) await tx.$executeRawUnsafe("UPDATE galaxies SET updated_at = now() WHERE id = $1::int", galaxy.id);
        // An enabled galaxy keeps one tag per cluster: new clusters get theirs now.
        if (galaxy.enabled && changedClusters > 0) totals.tags_created += (await ensureTags(tx, galaxy.id, galaxy.localOnly)).created;
        totals.clusters_created += clusters.created;
        totals.clusters_updated += clusters.updated;
        totals.clusters_unchanged += bundle.clusters.values.length - changedClusters;
      }
      await this.audit.record(p, {
        action: "galaxy.updated",
        resourceType: "galaxy",
        metadata: { source: source.kind, galaxies: source.bundles.length, names: source.bundles.map((b) => b.name).slice(0, 200), ...totals },
      }, tx);
    }, TX_OPTIONS);
    return {
      galaxies: source.bundles.length,
      clusters_created: totals.clusters_created,
      clusters_updated: totals.clusters_updated,
      clusters_unchanged: totals.clusters_unchanged,
      took_ms: Math.round(performance.now() - started),
    };
  }

  /** The peer's `GET /galaxies/`: P2 page ordered by name; `filter` is a substring of the name or type. */
  async list(p: Principal | null, given: z.input<typeof galaxyListContract>, query: GalaxyQuery = {}): Promise<P2Page<Galaxy>> {
    authorize(p, "galaxies:read");
    const q = parseInput(galaxyListContract, given);
    const filter = emptyAsNull(q.filter);
    const like = filter === null ? null : likeLiteral(filter);
    const where: Prisma.GalaxyWhereInput = {
      ...(like === null ? {} : { OR: [{ name: { contains: like, mode: "insensitive" } }, { type: { contains: like, mode: "insensitive" } }] }),
      ...(q.enabled === undefined ? {} : { enabled: q.enabled }),
    };
    const { prisma } = this.ctx.db;
    const [rows, total] = await Promise.all([
      prisma.galaxy.findMany({ ...query, where, orderBy: [{ name: "asc" }, { id: "asc" }], take: q.size, skip: offsetOf(q) }),
      prisma.galaxy.count({ where }),
    ]);
    return { ...pageOf(rows, total, q), query: { filter } };
  }

  /** One galaxy by id or uuid, with all its clusters (ordered by value) unless told otherwise. */
  async get(p: Principal | null, idOrUuid: number | string): Promise<GalaxyWithClusters> {
    authorize(p, "galaxies:read");
    const galaxy = await this.ctx.db.prisma.galaxy.findUnique({ where: galaxyKey(idOrUuid), include: { clusters: { orderBy: CLUSTER_ORDER } } });
    if (!galaxy) throw errors.notFound("Galaxy");
    return galaxy;
  }

  /** One galaxy by id or uuid, read with a GraphQL selection (its clusters page by page through the selection). */
  async getSelected(p: Principal | null, idOrUuid: number | string, query: GalaxyQuery = {}): Promise<Galaxy> {
    authorize(p, "galaxies:read");
    const galaxy = await this.ctx.db.prisma.galaxy.findUnique({ ...query, where: galaxyKey(idOrUuid) });
    if (!galaxy) throw errors.notFound("Galaxy");
    return galaxy;
  }

  /**
   * A galaxy's clusters, paged; `filter` is a case-insensitive substring of the value, tag name or
   * an external id (a substring of an array element: SQL picks the page, Prisma reads its rows with
   * the caller's selection).
   */
  async clusters(p: Principal | null, galaxyIdOrUuid: number | string, given: z.input<typeof clusterListContract>, query: ClusterQuery = {}): Promise<P2Page<GalaxyCluster>> {
    authorize(p, "galaxies:read");
    const q: ClusterListQuery = parseInput(clusterListContract, given);
    const galaxy = await this.find(galaxyIdOrUuid);
    const filter = emptyAsNull(q.filter);
    const args: unknown[] = [galaxy.id];
    let w = "WHERE c.galaxy_id = $1";
    if (filter !== null) {
      args.push(containsPattern(filter));
      w += ` AND (c.value ILIKE $2 OR c.tag_name ILIKE $2 OR EXISTS (SELECT 1 FROM unnest(c.external_ids) e WHERE e ILIKE $2))`;
    }
    const { pool, prisma } = this.ctx.db;
    const [ids, count] = await Promise.all([
      pool.query<{ id: number }>(`SELECT c.id FROM galaxy_clusters c ${w} ORDER BY c.value, c.id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`, [...args, q.size, offsetOf(q)]),
      pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM galaxy_clusters c ${w}`, args),
    ]);
    const rows = ids.rows.length ? await prisma.galaxyCluster.findMany({ ...query, where: { id: { in: ids.rows.map((r) => r.id) } }, orderBy: CLUSTER_ORDER }) : [];
    return { ...pageOf(rows, count.rows[0].n, q), query: { filter } };
  }

  /**
   * The clusters whose tag is one of these names, each with its galaxy, for MISP's tags/search
   * (GalaxyCluster::getCluster: by exact tag name, whether or not the galaxy is enabled).
   */
  async clustersByTagNames(p: Principal | null, names: readonly string[]): Promise<(GalaxyCluster & { galaxy: Galaxy })[]> {
    authorize(p, "galaxies:read");
    const wanted = [...new Set(names.filter((n) => n.startsWith(TAG_PREFIX)))];
    if (wanted.length > MAX_RESOLVE_TOKENS) throw errors.invalidInput([], `at most ${MAX_RESOLVE_TOKENS} tag names`, wanted.length);
    if (wanted.length === 0) return [];
    return this.ctx.db.prisma.galaxyCluster.findMany({ where: { tagName: { in: wanted } }, include: { galaxy: true }, orderBy: CLUSTER_ORDER });
  }

  /**
   * The tag names of the clusters that MISP's tags/search finds through a search string rather than
   * the tag name: a value equal to it, or a synonym (meta.synonyms) it matches as a LIKE pattern,
   * both case-insensitive (TagsController::search). At most `limit` names, in tag name order.
   */
  async clusterTagNamesByValueOrSynonym(p: Principal | null, terms: readonly string[], limit: number): Promise<string[]> {
    authorize(p, "galaxies:read");
    const wanted = [...new Set(terms.map((t) => t.toLowerCase()))];
    if (wanted.length > MAX_RESOLVE_TOKENS) throw errors.invalidInput([], `at most ${MAX_RESOLVE_TOKENS} search strings`, wanted.length);
    if (wanted.length === 0) return [];
    // A single synonym is stored as a string by some galaxies, a list by most.
    const { rows } = await this.ctx.db.pool.query<{ tag_name: string }>(
      `SELECT DISTINCT c.tag_name FROM galaxy_clusters c
        WHERE lower(c.value) = ANY($1::text[])
           OR EXISTS (SELECT 1
                        FROM jsonb_array_elements_text(CASE jsonb_typeof(c.meta->'synonyms') WHEN 'array' THEN c.meta->'synonyms' WHEN 'string' THEN jsonb_build_array(c.meta->'synonyms') ELSE '[]'::jsonb END) s
                        JOIN unnest($1::text[]) w ON lower(s) LIKE w)
        ORDER BY c.tag_name LIMIT $2`,
      [wanted, limit],
    );
    return rows.map((r) => r.tag_name);
  }

  /**
   * The peer's `GET /galaxies/mitre-attack-patterns`: clusters of the ATT&CK galaxy (imported,
   * enabled or not), filtered by a substring of the value or external id, ordered by external id.
   */
  async attackPatterns(p: Principal | null, given: z.input<typeof attackPatternQueryContract>): Promise<AttackPattern[]> {
    authorize(p, "galaxies:read");
    const f = emptyAsNull(parseInput(attackPatternQueryContract, given).filter);
    const args: unknown[] = [ATTACK_PATTERN_TYPE, MAX_ATTACK_PATTERNS];
    let w = "WHERE g.type = $1";
    if (f !== null) {
      args.push(containsPattern(f));
      w += " AND (c.value ILIKE $3 OR EXISTS (SELECT 1 FROM unnest(c.external_ids) e WHERE e ILIKE $3))";
    }
    const { rows } = await this.ctx.db.pool.query<AttackPattern>(
      `SELECT c.uuid, c.value, c.description, c.external_ids[1] AS external_id
         FROM galaxy_clusters c JOIN galaxies g ON g.id = c.galaxy_id
         ${w}
        ORDER BY c.external_ids[1] COLLATE "C" NULLS LAST, c.value, c.id
        LIMIT $2`,
      args,
    );
    return rows;
  }

  /**
   * For fw-attack-pattern hunts: technique codes (`T1059`, `t1059.001`; matched exactly against
   * the external ids, so a technique does not include its sub-techniques), cluster uuids or full
   * tag names, resolved against the imported AND enabled `mitre-attack-pattern` galaxy.
   * Any authenticated caller: the hunt service checks its own scopes before calling this.
   */
  async resolveClusters(p: Principal | null, tokens: readonly string[]): Promise<ResolvedClusters> {
    authorize(p);
    const wanted = [...new Set(tokens.map((t) => t.trim()).filter(Boolean))];
    if (wanted.length > MAX_RESOLVE_TOKENS) throw errors.invalidInput([], `at most ${MAX_RESOLVE_TOKENS} techniques`, wanted.length);
    const { pool } = this.ctx.db;
    const galaxies = (await pool.query<{ id: number; enabled: boolean }>("SELECT id, enabled FROM galaxies WHERE type = $1", [ATTACK_PATTERN_TYPE])).rows;
    const enabledIds = galaxies.filter((g) => g.enabled).map((g) => g.id);
    if (galaxies.length === 0) return { clusters: [], unresolved: wanted, galaxy: "not_imported" };
    if (enabledIds.length === 0) return { clusters: [], unresolved: wanted, galaxy: "disabled" };
    if (wanted.length === 0) return { clusters: [], unresolved: [], galaxy: "ready" };

    const kinds = wanted.map((token) =>
      UUID.test(token)
        ? { token, kind: "uuid" as const, key: token.toLowerCase() }
        : token.startsWith(TAG_PREFIX)
          ? { token, kind: "tag" as const, key: token }
          : { token, kind: "code" as const, key: token.toUpperCase() },
    );
    const keysOf = (kind: string) => kinds.filter((k) => k.kind === kind).map((k) => k.key);
    const { rows } = await pool.query<GalaxyCluster>(
      `SELECT ${CLUSTER_COLUMNS} FROM galaxy_clusters c
        WHERE c.galaxy_id = ANY($1::int[])
          AND (c.uuid = ANY($2::uuid[]) OR c.tag_name = ANY($3::text[]) OR c.external_ids && $4::text[])
        ORDER BY c.external_ids[1] COLLATE "C" NULLS LAST, c.value, c.id`,
      [enabledIds, keysOf("uuid"), keysOf("tag"), keysOf("code")],
    );
    const matched = (k: (typeof kinds)[number]) =>
      rows.some((c) => (k.kind === "uuid" ? c.uuid === k.key : k.kind === "tag" ? c.tagName === k.key : c.externalIds.includes(k.key)));
    return { clusters: rows, unresolved: kinds.filter((k) => !matched(k)).map((k) => k.token), galaxy: "ready" };
  }

  /**
   * `PATCH /galaxies/{id}`. Enabling creates one tag per cluster (idempotent; tags this galaxy hid
   * earlier are shown again); disabling hides them, except tags another enabled galaxy also uses.
   */
  async setEnabled(p: Principal | null, id: number, given: z.input<typeof galaxyFlagsContract>, query: GalaxyQuery = {}): Promise<Galaxy> {
    authorize(p, "galaxies:update", "galaxies:admin");
    const flags: GalaxyFlags = parseInput(galaxyFlagsContract, given);
    await this.ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${GALAXY_LOCK})`);
      const before = await tx.galaxy.findUnique({ where: { id } });
      if (!before) throw errors.notFound("Galaxy");
      const data = { enabled: flags.enabled, localOnly: flags.localOnly ?? before.localOnly, default: flags.default ?? before.default };
      const flagsChanged = data.enabled !== before.enabled || data.localOnly !== before.localOnly || data.default !== before.default;
      const galaxy = flagsChanged ? await tx.galaxy.update({ where: { id }, data }) : before;
      const tags = flags.enabled ? { ...(await ensureTags(tx, id, galaxy.localOnly)), hidden: 0 } : { created: 0, unhidden: 0, hidden: await hideTags(tx, id) };
      if (flagsChanged || tags.created + tags.unhidden + tags.hidden > 0) {
        await this.audit.record(p, {
          action: flags.enabled ? "galaxy.enabled" : "galaxy.disabled",
          resourceType: "galaxy",
          resourceId: id,
          metadata: {
            name: galaxy.name,
            type: galaxy.type,
            local_only: galaxy.localOnly,
            default: galaxy.default,
            ...(flags.enabled ? { tags_created: tags.created, tags_unhidden: tags.unhidden } : { tags_hidden: tags.hidden }),
          },
        }, tx);
      }
    }, TX_OPTIONS);
    return this.getSelected(p, id, query);
  }

  private async find(idOrUuid: number | string): Promise<Galaxy> {
    const byId = typeof idOrUuid === "number";
    if (!byId && !UUID.test(idOrUuid)) throw errors.notFound("Galaxy");
    const { rows } = await this.ctx.db.pool.query<Galaxy>(
      `SELECT ${GALAXY_COLUMNS} FROM galaxies g WHERE ${byId ? "g.id = $1" : "g.uuid = $1::uuid"}`,
      [byId ? idOrUuid : idOrUuid.toLowerCase()],
    );
    if (!rows[0]) throw errors.notFound("Galaxy");
    return rows[0];
  }
}

type Tx = Prisma.TransactionClient;

const galaxyKey = (idOrUuid: number | string): Prisma.GalaxyWhereUniqueInput => {
  if (typeof idOrUuid === "number") return { id: idOrUuid };
  if (!UUID.test(idOrUuid)) throw errors.notFound("Galaxy");
  return { uuid: idOrUuid.toLowerCase() };
};

interface UpsertedGalaxy {
  id: number;
  enabled: boolean;
  localOnly: boolean;
  inserted: boolean;
  changed: boolean;
}

/** Inserts the galaxy or updates it when its content differs; never touches enabled, local_only or default. */
async function upsertGalaxy(tx: Tx, b: GalaxyBundle): Promise<UpsertedGalaxy> {
  const g = b.galaxy;
  const rows = await tx.$queryRawUnsafe<UpsertedGalaxy[]>(
    `WITH up AS (
       INSERT INTO galaxies AS g (uuid, name, type, description, version, icon, namespace, kill_chain_order)
       VALUES ($1::uuid, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::jsonb)
       ON CONFLICT (uuid) DO UPDATE SET
         name = EXCLUDED.name, type = EXCLUDED.type, description = EXCLUDED.description, version = EXCLUDED.version,
         icon = EXCLUDED.icon, namespace = EXCLUDED.namespace, kill_chain_order = EXCLUDED.kill_chain_order, updated_at = now()
       WHERE (g.name, g.type, g.description, g.version, g.icon, g.namespace, g.kill_chain_order)
         IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.type, EXCLUDED.description, EXCLUDED.version, EXCLUDED.icon, EXCLUDED.namespace, EXCLUDED.kill_chain_order)
       RETURNING g.id, g.enabled, g.local_only, (xmax = 0) AS inserted)
     SELECT id, enabled, local_only AS "localOnly", inserted, true AS changed FROM up
     UNION ALL
     SELECT id, enabled, local_only, false, false FROM galaxies WHERE uuid = $1::uuid AND NOT EXISTS (SELECT 1 FROM up)`,
    g.uuid,
    g.name,
    g.type,
    g.description,
    g.version,
    g.icon,
    g.namespace,
    g.kill_chain_order === undefined ? null : JSON.stringify(g.kill_chain_order),
  );
  return rows[0];
}

/**
 * All clusters of one galaxy in one statement: unnest the columns, insert new uuids, update rows
 * whose content (every imported column, version included) differs, leave the others untouched.
 */
async function upsertClusters(tx: Tx, galaxyId: number, b: GalaxyBundle): Promise<{ created: number; updated: number }> {
  const file = b.clusters;
  const n = file.values.length;
  if (n === 0) return { created: 0, updated: 0 };
  const uuids = new Array<string>(n);
  const values = new Array<string>(n);
  const tagNames = new Array<string>(n);
  const descriptions = new Array<string>(n);
  const metas = new Array<string>(n);
  const related = new Array<string>(n);
  const externalIds = new Array<string>(n);
  file.values.forEach((c, i) => {
    uuids[i] = c.uuid;
    values[i] = c.value;
    tagNames[i] = clusterTagName(b.galaxy.type, c.value);
    descriptions[i] = c.description;
    metas[i] = JSON.stringify(c.meta);
    related[i] = JSON.stringify(c.related);
    externalIds[i] = JSON.stringify(externalIdsOf(c.meta));
  });
  const rows = await tx.$queryRawUnsafe<{ created: number; updated: number }[]>(
    `WITH src AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS s(uuid, value, tag_name, description, meta, related, external_ids)),
     up AS (
       INSERT INTO galaxy_clusters AS c
         (uuid, galaxy_id, collection_uuid, type, value, tag_name, description, source, authors, version, meta, related, external_ids)
       SELECT s.uuid, $8::int, $9::uuid, $10::text, s.value, s.tag_name, s.description, $11::text, $12::text[], $13::text,
              s.meta::jsonb, s.related::jsonb, ARRAY(SELECT jsonb_array_elements_text(s.external_ids::jsonb))
         FROM src s
       ON CONFLICT (uuid) DO UPDATE SET
         galaxy_id = EXCLUDED.galaxy_id, collection_uuid = EXCLUDED.collection_uuid, type = EXCLUDED.type,
         value = EXCLUDED.value, tag_name = EXCLUDED.tag_name, description = EXCLUDED.description, source = EXCLUDED.source,
         authors = EXCLUDED.authors, version = EXCLUDED.version, meta = EXCLUDED.meta, related = EXCLUDED.related,
         external_ids = EXCLUDED.external_ids
       WHERE (c.version, c.galaxy_id, c.collection_uuid, c.type, c.value, c.tag_name, c.description, c.source, c.authors,
              c.meta, c.related, c.external_ids)
         IS DISTINCT FROM (EXCLUDED.version, EXCLUDED.galaxy_id, EXCLUDED.collection_uuid, EXCLUDED.type, EXCLUDED.value,
              EXCLUDED.tag_name, EXCLUDED.description, EXCLUDED.source, EXCLUDED.authors, EXCLUDED.meta, EXCLUDED.related,
              EXCLUDED.external_ids)
       RETURNING (xmax = 0) AS inserted)
     SELECT (count(*) FILTER (WHERE inserted))::int AS created, (count(*) FILTER (WHERE NOT inserted))::int AS updated FROM up`,
    uuids,
    values,
    tagNames,
    descriptions,
    metas,
    related,
    externalIds,
    galaxyId,
    file.uuid ?? null,
    file.type,
    file.source,
    file.authors ?? [],
    file.version,
  );
  return { created: Number(rows[0].created), updated: Number(rows[0].updated) };
}

/** One galaxy tag per distinct cluster tag name; existing galaxy tags that were hidden are shown again. */
async function ensureTags(tx: Tx, galaxyId: number, localOnly: boolean): Promise<{ created: number; unhidden: number }> {
  const rows = await tx.$queryRawUnsafe<{ created: number; unhidden: number }[]>(
    `WITH up AS (
       INSERT INTO tags AS t (name, colour, exportable, hide_tag, is_galaxy, local_only)
       SELECT DISTINCT c.tag_name, $2::text, true, false, true, $3::boolean FROM galaxy_clusters c WHERE c.galaxy_id = $1::int
       ON CONFLICT (name) DO UPDATE SET hide_tag = false WHERE t.is_galaxy AND t.hide_tag
       RETURNING (xmax = 0) AS inserted)
     SELECT (count(*) FILTER (WHERE inserted))::int AS created, (count(*) FILTER (WHERE NOT inserted))::int AS unhidden FROM up`,
    galaxyId,
    GALAXY_TAG_COLOUR,
    localOnly,
  );
  return { created: Number(rows[0].created), unhidden: Number(rows[0].unhidden) };
}

/** Hides the galaxy's tags, except those a cluster of another enabled galaxy also uses. */
async function hideTags(tx: Tx, galaxyId: number): Promise<number> {
  return tx.$executeRawUnsafe(
    `UPDATE tags t SET hide_tag = true
      WHERE t.is_galaxy AND NOT t.hide_tag
        AND t.name IN (SELECT c.tag_name FROM galaxy_clusters c WHERE c.galaxy_id = $1::int)
        AND NOT EXISTS (SELECT 1 FROM galaxy_clusters o JOIN galaxies g ON g.id = o.galaxy_id
                         WHERE o.tag_name = t.name AND g.enabled AND g.id <> $1::int)`,
    galaxyId,
  );
}
