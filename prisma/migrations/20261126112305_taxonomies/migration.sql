-- CreateTable
CREATE TABLE "taxonomies" (
    "id" SERIAL NOT NULL,
    "uuid" UUID,
    "namespace" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "expanded" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "exclusive" BOOLEAN NOT NULL DEFAULT false,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "highlighted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "taxonomies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "taxonomy_predicates" (
    "id" SERIAL NOT NULL,
    "uuid" UUID,
    "taxonomy_id" INTEGER NOT NULL,
    "value" TEXT NOT NULL,
    "expanded" TEXT,
    "description" TEXT,
    "colour" TEXT,
    "numerical_value" INTEGER,
    "exclusive" BOOLEAN NOT NULL DEFAULT false,
    "tag_name" TEXT NOT NULL,

    CONSTRAINT "taxonomy_predicates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "taxonomy_entries" (
    "id" SERIAL NOT NULL,
    "uuid" UUID,
    "taxonomy_predicate_id" INTEGER NOT NULL,
    "value" TEXT NOT NULL,
    "expanded" TEXT,
    "description" TEXT,
    "colour" TEXT,
    "numerical_value" INTEGER,
    "tag_name" TEXT NOT NULL,

    CONSTRAINT "taxonomy_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "taxonomies_uuid_key" ON "taxonomies"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "taxonomies_namespace_key" ON "taxonomies"("namespace");

-- CreateIndex
CREATE INDEX "taxonomy_predicates_tag_name_idx" ON "taxonomy_predicates"("tag_name");

-- CreateIndex
CREATE UNIQUE INDEX "taxonomy_predicates_taxonomy_id_value_key" ON "taxonomy_predicates"("taxonomy_id", "value");

-- CreateIndex
CREATE INDEX "taxonomy_entries_tag_name_idx" ON "taxonomy_entries"("tag_name");

-- CreateIndex
CREATE UNIQUE INDEX "taxonomy_entries_taxonomy_predicate_id_value_key" ON "taxonomy_entries"("taxonomy_predicate_id", "value");

-- AddForeignKey
ALTER TABLE "taxonomy_predicates" ADD CONSTRAINT "taxonomy_predicates_taxonomy_id_fkey" FOREIGN KEY ("taxonomy_id") REFERENCES "taxonomies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "taxonomy_entries" ADD CONSTRAINT "taxonomy_entries_taxonomy_predicate_id_fkey" FOREIGN KEY ("taxonomy_predicate_id") REFERENCES "taxonomy_predicates"("id") ON DELETE CASCADE ON UPDATE CASCADE;
