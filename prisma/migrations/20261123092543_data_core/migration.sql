-- CreateTable
CREATE TABLE "tags" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "colour" TEXT NOT NULL DEFAULT '#ffffff',
    "exportable" BOOLEAN NOT NULL DEFAULT true,
    "hide_tag" BOOLEAN NOT NULL DEFAULT false,
    "is_galaxy" BOOLEAN NOT NULL DEFAULT false,
    "is_custom_galaxy" BOOLEAN NOT NULL DEFAULT false,
    "local_only" BOOLEAN NOT NULL DEFAULT false,
    "numerical_value" INTEGER,
    "org_id" INTEGER,
    "user_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "info" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "threat_level" SMALLINT NOT NULL DEFAULT 4,
    "analysis" SMALLINT NOT NULL DEFAULT 0,
    "distribution" SMALLINT NOT NULL DEFAULT 0,
    "sharing_group_id" INTEGER,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "publish_timestamp" BIGINT NOT NULL DEFAULT 0,
    "timestamp" BIGINT NOT NULL,
    "sighting_timestamp" BIGINT,
    "org_id" INTEGER NOT NULL,
    "orgc_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "locked" BOOLEAN NOT NULL DEFAULT false,
    "proposal_email_lock" BOOLEAN NOT NULL DEFAULT false,
    "protected" BOOLEAN NOT NULL DEFAULT false,
    "disable_correlation" BOOLEAN NOT NULL DEFAULT false,
    "extends_uuid" UUID,
    "galaxies" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_tags" (
    "event_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,
    "local" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "event_tags_pkey" PRIMARY KEY ("event_id","tag_id")
);

-- CreateTable
CREATE TABLE "objects" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "event_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "meta_category" TEXT,
    "description" TEXT,
    "template_uuid" TEXT,
    "template_version" INTEGER,
    "timestamp" BIGINT NOT NULL,
    "distribution" SMALLINT NOT NULL DEFAULT 5,
    "sharing_group_id" INTEGER,
    "comment" TEXT NOT NULL DEFAULT '',
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "first_seen" TIMESTAMPTZ(6),
    "last_seen" TIMESTAMPTZ(6),

    CONSTRAINT "objects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "object_references" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "object_id" INTEGER NOT NULL,
    "event_id" INTEGER NOT NULL,
    "referenced_uuid" UUID NOT NULL,
    "referenced_type" SMALLINT,
    "relationship_type" TEXT NOT NULL,
    "comment" TEXT NOT NULL DEFAULT '',
    "timestamp" BIGINT NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "object_references_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attributes" (
    "id" BIGSERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "event_id" INTEGER NOT NULL,
    "object_id" INTEGER,
    "object_relation" TEXT,
    "type" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "value1" TEXT NOT NULL,
    "value2" TEXT,
    "to_ids" BOOLEAN NOT NULL DEFAULT true,
    "comment" TEXT NOT NULL DEFAULT '',
    "distribution" SMALLINT NOT NULL DEFAULT 5,
    "sharing_group_id" INTEGER,
    "timestamp" BIGINT NOT NULL,
    "first_seen" TIMESTAMPTZ(6),
    "last_seen" TIMESTAMPTZ(6),
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "disable_correlation" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "attributes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attribute_tags" (
    "attribute_id" BIGINT NOT NULL,
    "tag_id" INTEGER NOT NULL,
    "local" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "attribute_tags_pkey" PRIMARY KEY ("attribute_id","tag_id")
);

-- CreateTable
CREATE TABLE "sightings" (
    "id" BIGSERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "attribute_id" BIGINT NOT NULL,
    "event_id" INTEGER NOT NULL,
    "type" SMALLINT NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT '',
    "org_id" INTEGER,
    "date_sighting" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sightings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "galaxies" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "version" TEXT NOT NULL DEFAULT '',
    "icon" TEXT NOT NULL DEFAULT '',
    "namespace" TEXT NOT NULL DEFAULT 'misp',
    "kill_chain_order" JSONB,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "local_only" BOOLEAN NOT NULL DEFAULT false,
    "default" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "galaxies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "galaxy_clusters" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "galaxy_id" INTEGER NOT NULL,
    "collection_uuid" UUID,
    "type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "tag_name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT '',
    "authors" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "version" TEXT NOT NULL DEFAULT '',
    "meta" JSONB NOT NULL DEFAULT '{}',
    "related" JSONB NOT NULL DEFAULT '[]',
    "external_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "galaxy_clusters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_records" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "entity_uuid" UUID NOT NULL,
    "event_uuid" UUID,
    "actor_type" TEXT NOT NULL,
    "actor_user_id" INTEGER,
    "payload" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tags_name_key" ON "tags"("name");

-- CreateIndex
CREATE UNIQUE INDEX "events_uuid_key" ON "events"("uuid");

-- CreateIndex
CREATE INDEX "events_timestamp_idx" ON "events"("timestamp");

-- CreateIndex
CREATE INDEX "events_orgc_id_idx" ON "events"("orgc_id");

-- CreateIndex
CREATE INDEX "events_date_idx" ON "events"("date");

-- CreateIndex
CREATE INDEX "event_tags_tag_id_idx" ON "event_tags"("tag_id");

-- CreateIndex
CREATE UNIQUE INDEX "objects_uuid_key" ON "objects"("uuid");

-- CreateIndex
CREATE INDEX "objects_event_id_idx" ON "objects"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "object_references_uuid_key" ON "object_references"("uuid");

-- CreateIndex
CREATE INDEX "object_references_object_id_idx" ON "object_references"("object_id");

-- CreateIndex
CREATE INDEX "object_references_event_id_idx" ON "object_references"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "attributes_uuid_key" ON "attributes"("uuid");

-- CreateIndex
CREATE INDEX "attributes_event_id_idx" ON "attributes"("event_id");

-- CreateIndex
CREATE INDEX "attributes_object_id_idx" ON "attributes"("object_id");

-- CreateIndex
CREATE INDEX "attributes_type_idx" ON "attributes"("type");

-- CreateIndex
CREATE INDEX "attribute_tags_tag_id_idx" ON "attribute_tags"("tag_id");

-- CreateIndex
CREATE UNIQUE INDEX "sightings_uuid_key" ON "sightings"("uuid");

-- CreateIndex
CREATE INDEX "sightings_attribute_id_idx" ON "sightings"("attribute_id");

-- CreateIndex
CREATE INDEX "sightings_event_id_idx" ON "sightings"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "galaxies_uuid_key" ON "galaxies"("uuid");

-- CreateIndex
CREATE INDEX "galaxies_type_idx" ON "galaxies"("type");

-- CreateIndex
CREATE UNIQUE INDEX "galaxy_clusters_uuid_key" ON "galaxy_clusters"("uuid");

-- CreateIndex
CREATE INDEX "galaxy_clusters_galaxy_id_idx" ON "galaxy_clusters"("galaxy_id");

-- CreateIndex
CREATE INDEX "galaxy_clusters_tag_name_idx" ON "galaxy_clusters"("tag_name");

-- CreateIndex
CREATE INDEX "change_records_entity_uuid_idx" ON "change_records"("entity_uuid");

-- CreateIndex
CREATE INDEX "change_records_event_uuid_idx" ON "change_records"("event_uuid");

-- CreateIndex
CREATE INDEX "change_records_created_at_idx" ON "change_records"("created_at");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organisations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_orgc_id_fkey" FOREIGN KEY ("orgc_id") REFERENCES "organisations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_tags" ADD CONSTRAINT "event_tags_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_tags" ADD CONSTRAINT "event_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "objects" ADD CONSTRAINT "objects_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "object_references" ADD CONSTRAINT "object_references_object_id_fkey" FOREIGN KEY ("object_id") REFERENCES "objects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_object_id_fkey" FOREIGN KEY ("object_id") REFERENCES "objects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attribute_tags" ADD CONSTRAINT "attribute_tags_attribute_id_fkey" FOREIGN KEY ("attribute_id") REFERENCES "attributes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attribute_tags" ADD CONSTRAINT "attribute_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sightings" ADD CONSTRAINT "sightings_attribute_id_fkey" FOREIGN KEY ("attribute_id") REFERENCES "attributes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "galaxy_clusters" ADD CONSTRAINT "galaxy_clusters_galaxy_id_fkey" FOREIGN KEY ("galaxy_id") REFERENCES "galaxies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma's datamodel cannot express these; the drift test allowlists them).
-- Exact-value lookups (correlation, imports) on values of any length: hash indexes have no row-size cap.
CREATE INDEX "attributes_value1_hash_idx" ON "attributes" USING hash ("value1");
CREATE INDEX "attributes_value2_hash_idx" ON "attributes" USING hash ("value2");
CREATE INDEX "galaxy_clusters_external_ids_gin_idx" ON "galaxy_clusters" USING gin ("external_ids");
CREATE INDEX "galaxy_clusters_value_trgm_idx" ON "galaxy_clusters" USING gin ("value" gin_trgm_ops);
ALTER TABLE "events" ADD CONSTRAINT "events_threat_level_range" CHECK ("threat_level" BETWEEN 1 AND 4);
ALTER TABLE "events" ADD CONSTRAINT "events_analysis_range" CHECK ("analysis" BETWEEN 0 AND 2);
ALTER TABLE "events" ADD CONSTRAINT "events_distribution_range" CHECK ("distribution" BETWEEN 0 AND 4);
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_distribution_range" CHECK ("distribution" BETWEEN 0 AND 5);
ALTER TABLE "objects" ADD CONSTRAINT "objects_distribution_range" CHECK ("distribution" BETWEEN 0 AND 5);
ALTER TABLE "sightings" ADD CONSTRAINT "sightings_type_range" CHECK ("type" BETWEEN 0 AND 2);
