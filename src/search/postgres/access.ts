/**
 * Access filtering as one stored value: `visible_to` (a generated column, `./schema.ts`) is the
 * document's audience (`../fields.ts` AUDIENCE_FIELD, written by the indexer from the distribution
 * rule of `src/auth/distribution.ts`): `{-1}` for everyone, otherwise the organisations that may read
 * it, and the markers of sharing groups whose members may (`sharingGroupMarker`). The filter is
 * then `visible_to && {-1, org, groups...}`: one array test on the row. A document without an
 * audience is the administrators' only; one stored before version 8 keeps the value computed then
 * (from its events' distribution alone) until it is indexed again, which the indexer does at start
 * (`src/indexing/stale-access.ts`). Org ids are NUMERIC, as `fields` holds longs of any size.
 */
import { audienceFilter, EVERYONE } from "../../auth/distribution.ts";
import { AUDIENCE_FIELD } from "../fields.ts";
import type { SearchAccess } from "../search-index.ts";

export { EVERYONE };

/**
 * `search_document_visibility(index_name, fields)`. The signature predates version 8 (the
 * generated column depends on it); the index name no longer matters.
 */
export function visibilityFunctionSql(): string {
  return `CREATE OR REPLACE FUNCTION search_document_visibility(index_name text, fields jsonb) RETURNS numeric[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ARRAY(SELECT DISTINCT (o.v #>> '{}')::numeric
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(fields -> '${AUDIENCE_FIELD}') = 'array' THEN fields -> '${AUDIENCE_FIELD}' ELSE '[]' END) AS o(v)
   WHERE jsonb_typeof(o.v) = 'number' ORDER BY 1) $$;`;
}

/** The audience values (everyone, the organisation, its sharing groups) a non-administrator's filter accepts in `visible_to`. */
export function visibleToParam(access: SearchAccess): number[] {
  return audienceFilter({ ...access, admin: false })!;
}
