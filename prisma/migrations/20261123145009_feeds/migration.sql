-- CreateTable
CREATE TABLE "feeds" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "source_format" TEXT NOT NULL,
    "input_source" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "distribution" INTEGER NOT NULL DEFAULT 0,
    "fixed_event" BOOLEAN NOT NULL DEFAULT false,
    "event_uuid" UUID,
    "publish" BOOLEAN NOT NULL DEFAULT false,
    "override_ids" BOOLEAN NOT NULL DEFAULT false,
    "tags" TEXT[],
    "rules" JSONB,
    "settings" JSONB,
    "headers" JSONB,
    "org_id" INTEGER NOT NULL,
    "created_by" INTEGER,
    "etag" TEXT,
    "last_modified" TEXT,
    "last_fetched_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "feeds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "feeds_org_id_idx" ON "feeds"("org_id");

ALTER TABLE "feeds" ADD CONSTRAINT "feeds_source_format_check" CHECK ("source_format" IN ('misp', 'csv', 'json', 'freetext'));
ALTER TABLE "feeds" ADD CONSTRAINT "feeds_input_source_check" CHECK ("input_source" IN ('network', 'local'));
