-- events/view extended:1 finds the events extending one by extends_uuid: without an index each
-- view scans the events table.
CREATE INDEX "events_extends_uuid_idx" ON "events"("extends_uuid");
