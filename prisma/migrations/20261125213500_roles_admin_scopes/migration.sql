-- Instance-wide writes (tag definitions, taxonomies, galaxies, correlation rebuilds, deletion and
-- exclusions) and importing as another organisation need admin-level scopes: tags:admin,
-- taxonomies:admin, galaxies:admin, correlations:admin, events:sync. A resource wildcard grows into
-- them, so in every role but the administrator's (id 1, "*"), the built-in org_admin (id 2) first,
-- these wildcards become the explicit scopes without the admin-level ones. The roles API grants them.
WITH expansion(wildcard, scope) AS (
  VALUES
    ('events:*', 'events:create'), ('events:*', 'events:read'), ('events:*', 'events:update'), ('events:*', 'events:delete'),
    ('events:*', 'events:tag'), ('events:*', 'events:publish'), ('events:*', 'events:import'),
    ('tags:*', 'tags:create'), ('tags:*', 'tags:read'), ('tags:*', 'tags:update'), ('tags:*', 'tags:delete'),
    ('taxonomies:*', 'taxonomies:create'), ('taxonomies:*', 'taxonomies:read'), ('taxonomies:*', 'taxonomies:update'), ('taxonomies:*', 'taxonomies:delete'),
    ('galaxies:*', 'galaxies:create'), ('galaxies:*', 'galaxies:read'), ('galaxies:*', 'galaxies:update'), ('galaxies:*', 'galaxies:delete'),
    ('correlations:*', 'correlations:read'), ('correlations:*', 'correlations:create'), ('correlations:*', 'correlations:delete')
)
UPDATE "roles" r
   SET "scopes" = ARRAY(
         SELECT DISTINCT kept.s FROM (
           SELECT s FROM unnest(r."scopes") AS s WHERE s NOT IN (SELECT wildcard FROM expansion)
           UNION ALL
           SELECT x.scope FROM expansion x WHERE x.wildcard = ANY(r."scopes")
         ) AS kept(s)
         ORDER BY kept.s
       )
 WHERE r."id" <> 1
   AND r."scopes" && ARRAY['events:*', 'tags:*', 'taxonomies:*', 'galaxies:*', 'correlations:*'];
