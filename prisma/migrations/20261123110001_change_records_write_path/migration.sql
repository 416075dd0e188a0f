-- The change log is read by id range only: the uuid and created_at B-trees cost every bulk import
-- a B-tree insert per change record for lookups nothing makes.
DROP INDEX "change_records_created_at_idx";
DROP INDEX "change_records_entity_uuid_idx";
DROP INDEX "change_records_event_uuid_idx";

-- Hand-written: a BRIN index for pruning the log by age (allowlisted in the drift test).
CREATE INDEX "change_records_created_at_brin_idx" ON "change_records" USING brin ("created_at");
