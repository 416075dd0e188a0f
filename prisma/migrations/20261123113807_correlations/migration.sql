-- CreateTable
CREATE TABLE "correlations" (
    "id" BIGSERIAL NOT NULL,
    "source_attribute_id" BIGINT NOT NULL,
    "target_attribute_id" BIGINT NOT NULL,
    "source_event_id" INTEGER NOT NULL,
    "target_event_id" INTEGER NOT NULL,
    "match_type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "correlations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "correlation_exclusions" (
    "id" SERIAL NOT NULL,
    "value" TEXT NOT NULL,
    "comment" TEXT NOT NULL DEFAULT '',
    "created_by" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "correlation_exclusions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "correlation_rebuilds" (
    "id" SERIAL NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "total" INTEGER NOT NULL DEFAULT 0,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "removed" INTEGER NOT NULL DEFAULT 0,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "error" TEXT,
    "requested_by" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "correlation_rebuilds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "correlations_source_attribute_id_idx" ON "correlations"("source_attribute_id");

-- CreateIndex
CREATE INDEX "correlations_target_attribute_id_idx" ON "correlations"("target_attribute_id");

-- CreateIndex
CREATE INDEX "correlations_source_event_id_idx" ON "correlations"("source_event_id");

-- CreateIndex
CREATE INDEX "correlations_target_event_id_idx" ON "correlations"("target_event_id");

-- CreateIndex
CREATE UNIQUE INDEX "correlation_exclusions_value_key" ON "correlation_exclusions"("value");

-- AddForeignKey
ALTER TABLE "correlations" ADD CONSTRAINT "correlations_source_attribute_id_fkey" FOREIGN KEY ("source_attribute_id") REFERENCES "attributes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "correlations" ADD CONSTRAINT "correlations_target_attribute_id_fkey" FOREIGN KEY ("target_attribute_id") REFERENCES "attributes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (allowlisted in the drift test):
-- a pair is stored once whichever attribute found it: (a, b) and (b, a) are the same row.
CREATE UNIQUE INDEX "correlations_pair_key" ON "correlations" (LEAST("source_attribute_id", "target_attribute_id"), GREATEST("source_attribute_id", "target_attribute_id"), "match_type");
-- values can be longer than a B-tree entry allows (10 KB URLs): hash index.
CREATE INDEX "correlations_value_hash_idx" ON "correlations" USING hash ("value");

-- An address or network of an ip-typed attribute as inet, or NULL when the text is not one
-- (values are validated on write, but the CIDR matching must never fail a job on old data).
-- PARALLEL UNSAFE: its EXCEPTION block starts a subtransaction, which parallel workers cannot.
CREATE FUNCTION wb_try_inet(v text) RETURNS inet LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE AS $$
BEGIN
  IF v !~ '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$' THEN RETURN NULL; END IF;
  RETURN v::inet;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;

-- Networks among ip-typed attributes are few: a host's correlation job finds the networks holding it
-- through this partial index instead of reading every address.
CREATE INDEX "attributes_ip_networks_idx" ON "attributes" ("id") WHERE "type" IN ('ip-src', 'ip-dst', 'ip-src|port', 'ip-dst|port') AND strpos("value1", '/') > 0;
