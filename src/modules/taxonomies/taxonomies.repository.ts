import type { Sql } from "../../platform/db/transaction.ts";

/** A machine tag's parts as MISP splits them (Taxonomy::splitTagToComponents); value null for `namespace:predicate`. */
export interface TagParts {
  name: string;
  namespace: string;
  predicate: string;
  value: string | null;
}

/** A taxonomy's own fields, as the tag answers carry them. */
export interface TaxonomyFields {
  id: number;
  namespace: string;
  description: string;
  version: number;
  enabled: boolean;
  exclusive: boolean;
  required: boolean;
  highlighted: boolean;
}

/** The taxonomy, predicate and matching entries of one tag, as MISP's Taxonomy::getTaxonomyForTag finds them. */
export interface TagTaxonomy {
  taxonomy: TaxonomyFields;
  predicate: { id: number; taxonomyId: number; value: string; expanded: string | null; colour: string | null; description: string | null; exclusive: boolean; numericalValue: number | null };
  /** The predicate's entries whose value is the tag's (case-insensitive); null for a two-part tag, whose predicate MISP answers without entries. */
  entries: { id: number; predicateId: number; value: string; expanded: string | null; colour: string | null; description: string | null; numericalValue: number | null }[] | null;
}

interface TagTaxonomyRow extends Omit<TaxonomyFields, "id"> {
  name: string;
  taxonomy_id: number;
  predicate_id: number;
  predicate_value: string;
  predicate_expanded: string | null;
  predicate_colour: string | null;
  predicate_description: string | null;
  predicate_exclusive: boolean;
  predicate_numerical_value: number | null;
  entries: { id: number; value: string; expanded: string | null; colour: string | null; description: string | null; numerical_value: number | null }[] | null;
}

const toTagTaxonomy = (r: TagTaxonomyRow): TagTaxonomy => ({
  taxonomy: { id: r.taxonomy_id, namespace: r.namespace, description: r.description, version: r.version, enabled: r.enabled, exclusive: r.exclusive, required: r.required, highlighted: r.highlighted },
  predicate: {
    id: r.predicate_id,
    taxonomyId: r.taxonomy_id,
    value: r.predicate_value,
    expanded: r.predicate_expanded,
    colour: r.predicate_colour,
    description: r.predicate_description,
    exclusive: r.predicate_exclusive,
    numericalValue: r.predicate_numerical_value,
  },
  entries: r.entries?.map((e) => ({ id: e.id, predicateId: r.predicate_id, value: e.value, expanded: e.expanded, colour: e.colour, description: e.description, numericalValue: e.numerical_value })) ?? null,
});

/** An enabled taxonomy a tag belongs to, as MISP's tags/index adds it: the taxonomy's fields and the tag's expanded form. */
export interface TagIndexTaxonomy extends TaxonomyFields {
  /** The predicate's (and entry's) expanded names, as MISP's Taxonomy::getTaxonomyTags writes them; the tag's name when it is none of the taxonomy's tags. */
  expanded: string;
}

/** The taxonomies area's set-based reads. */
export class TaxonomiesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * For each tag, in one statement: the first taxonomy (by id) whose namespace is the tag's, its first
   * predicate whose value is the tag's, and that predicate's entries whose value is the tag's, all
   * compared lower-cased as MISP does. Tags whose namespace or predicate is unknown are left out.
   */
  async forTags(tags: readonly TagParts[]): Promise<Map<string, TagTaxonomy>> {
    if (tags.length === 0) return new Map();
    const { rows } = await this.sql.query<TagTaxonomyRow>(
      `SELECT w.name, t.id AS taxonomy_id, t.namespace, t.description, t.version, t.enabled, t.exclusive, t.required, t.highlighted,
              p.id AS predicate_id, p.value AS predicate_value, p.expanded AS predicate_expanded, p.colour AS predicate_colour,
              p.description AS predicate_description, p.exclusive AS predicate_exclusive, p.numerical_value AS predicate_numerical_value,
              CASE WHEN w.value IS NULL THEN NULL ELSE COALESCE(
                (SELECT json_agg(json_build_object('id', e.id, 'value', e.value, 'expanded', e.expanded, 'colour', e.colour, 'description', e.description, 'numerical_value', e.numerical_value) ORDER BY e.id)
                   FROM taxonomy_entries e WHERE e.taxonomy_predicate_id = p.id AND lower(e.value) = lower(w.value)), '[]') END AS entries
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(name, namespace, predicate, value)
         JOIN LATERAL (SELECT * FROM taxonomies t WHERE lower(t.namespace) = lower(w.namespace) ORDER BY t.id LIMIT 1) t ON true
         JOIN LATERAL (SELECT * FROM taxonomy_predicates p WHERE p.taxonomy_id = t.id AND lower(p.value) = lower(w.predicate) ORDER BY p.id LIMIT 1) p ON true`,
      [tags.map((t) => t.name), tags.map((t) => t.namespace), tags.map((t) => t.predicate), tags.map((t) => t.value)],
    );
    return new Map(rows.map((r) => [r.name, toTagTaxonomy(r)]));
  }

  /**
   * For each tag whose name starts with an enabled taxonomy's namespace and a colon (compared
   * lower-cased; the first such taxonomy by id), the taxonomy and the tag's expanded form: one
   * statement for the whole list, the names' namespaces joined to the taxonomies, not scanned.
   */
  async enabledForTags(names: readonly string[]): Promise<Map<string, TagIndexTaxonomy>> {
    if (names.length === 0) return new Map();
    const { rows } = await this.sql.query<TagIndexTaxonomy & { name: string }>(
      `WITH w AS (SELECT name, lower(split_part(name, ':', 1)) AS ns FROM unnest($1::text[]) AS name WHERE position(':' IN name) > 1),
            t AS (SELECT DISTINCT ON (lower(namespace)) * FROM taxonomies WHERE enabled AND lower(namespace) IN (SELECT ns FROM w) ORDER BY lower(namespace), id),
            x AS (SELECT p.taxonomy_id, upper(e.tag_name) AS tag, COALESCE(NULLIF(p.expanded, ''), p.value) || ': ' || COALESCE(NULLIF(e.expanded, ''), e.value) AS expanded, e.id AS ord
                    FROM taxonomy_entries e JOIN taxonomy_predicates p ON p.id = e.taxonomy_predicate_id JOIN t ON t.id = p.taxonomy_id
                  UNION ALL
                  SELECT p.taxonomy_id, upper(p.tag_name), COALESCE(NULLIF(p.expanded, ''), p.value), p.id
                    FROM taxonomy_predicates p JOIN t ON t.id = p.taxonomy_id WHERE NOT EXISTS (SELECT 1 FROM taxonomy_entries e WHERE e.taxonomy_predicate_id = p.id))
       SELECT DISTINCT ON (w.name) w.name, t.id, t.namespace, t.description, t.version, t.enabled, t.exclusive, t.required, t.highlighted, COALESCE(x.expanded, w.name) AS expanded
         FROM w JOIN t ON lower(t.namespace) = w.ns LEFT JOIN x ON x.taxonomy_id = t.id AND x.tag = upper(w.name)
        ORDER BY w.name, x.ord`,
      [[...new Set(names)]],
    );
    return new Map(rows.map(({ name, ...t }) => [name, t]));
  }
}
