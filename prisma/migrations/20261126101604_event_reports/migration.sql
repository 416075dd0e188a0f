-- MISP event reports: markdown documents inside an event (read like an object of it, written by
-- the event's owners), soft-deleted like events, attributes and objects.

-- CreateTable
CREATE TABLE "event_reports" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "event_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL DEFAULT '',
    "distribution" SMALLINT NOT NULL DEFAULT 5,
    "sharing_group_id" INTEGER,
    "timestamp" BIGINT NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "deleted_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "event_reports_uuid_key" ON "event_reports"("uuid");

-- CreateIndex
CREATE INDEX "event_reports_event_id_idx" ON "event_reports"("event_id");

-- AddForeignKey
ALTER TABLE "event_reports" ADD CONSTRAINT "event_reports_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_reports" ADD CONSTRAINT "event_reports_sharing_group_id_fkey" FOREIGN KEY ("sharing_group_id") REFERENCES "sharing_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The scopes reports:read|create|update|delete in the built-in roles, as the peer's roles hold them:
-- org_admin (id 2) all of them, user (3) all four, read_only (4) reports:read. Roles renamed or
-- changed since keep what they have plus these.
UPDATE "roles" r
   SET "scopes" = ARRAY(SELECT DISTINCT s FROM unnest(r."scopes" || g.scopes) AS s ORDER BY s)
  FROM (VALUES (2, ARRAY['reports:*']), (3, ARRAY['reports:read', 'reports:create', 'reports:update', 'reports:delete']), (4, ARRAY['reports:read'])) AS g(id, scopes)
 WHERE r."id" = g.id;
