-- PostgreSQL search backend (src/search/postgres): one row per search document of every index
-- (svc-events, svc-attributes, svc-correlations). Columns are described in
-- src/search/postgres/documents.ts; this table is not modelled in prisma/schema.prisma (raw SQL only).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE IF NOT EXISTS "search_documents" (
    "index_name"  TEXT NOT NULL,
    "id"          TEXT NOT NULL,
    "source"      JSONB NOT NULL,
    "fields"      JSONB NOT NULL,
    "phrases"     JSONB NOT NULL,
    "search_text" TEXT NOT NULL,
    "ts"          TIMESTAMPTZ,
    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("index_name", "id")
);

-- Equality (@>) and existence (?) on the precomputed field values.
CREATE INDEX IF NOT EXISTS "search_documents_fields_gin_idx" ON "search_documents" USING GIN ("fields");
-- Superset pre-filter of wildcard (LIKE) and regex (~) queries.
CREATE INDEX IF NOT EXISTS "search_documents_search_text_trgm_idx" ON "search_documents" USING GIN ("search_text" gin_trgm_ops);
-- Sort and ranges on @timestamp, per index.
CREATE INDEX IF NOT EXISTS "search_documents_ts_idx" ON "search_documents" ("index_name", "ts" DESC NULLS LAST, "id" COLLATE "C");
