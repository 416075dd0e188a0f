-- MISP's tag lookups compare names lower-cased (tags/search, tags/index filters, attaching a tag by
-- name ignoring case): lower(name) = ANY(...) and lower(name) LIKE 'prefix%' scanned the whole tags
-- table. text_pattern_ops serves both the equality and a LIKE with a fixed prefix whatever the
-- database's collation.
CREATE INDEX "tags_lower_name_idx" ON "tags" (lower("name") text_pattern_ops);
