/**
 * Access filtering as one stored value. A caller who is not an administrator sees a document when,
 * for EVERY access prefix of its index (`../fields.ts`), `<prefix>distribution` is 1-3 or
 * `<prefix>org_id` / `<prefix>orgc_id` is their organisation (the OpenSearch backend's filter).
 *
 * `visible_to` (a generated column, `./schema.ts`) holds the answer per document: `{-1}` when every
 * prefix is public, otherwise the organisations that pass every prefix. The filter is then
 * `visible_to && {-1, org}`: one array test on the row, where the JSONB form was five containment
 * tests (each one reading `fields`). Org ids are NUMERIC, as `fields` holds longs of any size.
 */
import { INDEX_FIELDS } from "../fields.ts";
import { INDEX_NAMES } from "../search-index.ts";

export const EVERYONE = -1;

/** SQL string literal of a constant from fields.ts (never user input). */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

function visibilityExpr(prefixes: string[]): string {
  const arr = (field: string) => `COALESCE(fields -> ${lit(field)}, '[]'::jsonb)`;
  const pub = (p: string) => `(${arr(`${p}distribution`)} @> '[1]' OR ${arr(`${p}distribution`)} @> '[2]' OR ${arr(`${p}distribution`)} @> '[3]')`;
  const passes = (p: string) => `(${pub(p)} OR ${arr(`${p}org_id`)} @> jsonb_build_array(o.v) OR ${arr(`${p}orgc_id`)} @> jsonb_build_array(o.v))`;
  const candidates = prefixes.flatMap((p) => [arr(`${p}org_id`), arr(`${p}orgc_id`)]).join(" || ");
  return `CASE WHEN ${prefixes.map(pub).join(" AND ")} THEN ARRAY[${EVERYONE}]::numeric[]
    ELSE ARRAY(SELECT DISTINCT (o.v #>> '{}')::numeric FROM jsonb_array_elements(${candidates}) AS o(v)
               WHERE jsonb_typeof(o.v) = 'number' AND ${prefixes.map(passes).join(" AND ")}) END`;
}

/** `search_document_visibility(index_name, fields)`, from the access prefixes of fields.ts. */
export function visibilityFunctionSql(): string {
  const branches = INDEX_NAMES.map((index) => `WHEN ${lit(index)} THEN ${visibilityExpr(INDEX_FIELDS[index].accessPrefixes)}`);
  return `CREATE OR REPLACE FUNCTION search_document_visibility(index_name text, fields jsonb) RETURNS numeric[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE index_name ${branches.join("\n    ")} ELSE '{}'::numeric[] END $$;`;
}

/** The organisations a caller's filter accepts in `visible_to`. */
export function visibleToParam(orgId: number | null): number[] {
  return orgId === null ? [EVERYONE] : [EVERYONE, orgId];
}
