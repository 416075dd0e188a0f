-- Soft delete of events (DELETE without force, as the peer): the row stays, restorable, and
-- purge_deleted removes it for good once deleted_at is older than retention.purge_deleted_after_days.
ALTER TABLE "events" ADD COLUMN     "deleted" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "deleted_at" TIMESTAMPTZ(6);

CREATE INDEX "events_deleted_at_idx" ON "events"("deleted_at");
