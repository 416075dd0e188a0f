-- Saved exports of a Lucene query (issue 21): the owner's, run now or on a schedule.
-- CreateTable
CREATE TABLE "exports" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "query" TEXT NOT NULL,
    "index_target" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "distribution" SMALLINT,
    "misp_event_uuid" UUID NOT NULL DEFAULT gen_random_uuid(),
    "status" TEXT NOT NULL DEFAULT 'queued',
    "storage_key" TEXT,
    "file_size" BIGINT,
    "record_count" INTEGER,
    "error" TEXT,
    "task_run_id" UUID,
    "scheduled_task_id" UUID,
    "last_run_at" TIMESTAMPTZ(6),
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "exports_scheduled_task_id_key" ON "exports"("scheduled_task_id");

-- CreateIndex
CREATE INDEX "exports_user_id_created_at_idx" ON "exports"("user_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "exports" ADD CONSTRAINT "exports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "exports" ADD CONSTRAINT "exports_scheduled_task_id_fkey" FOREIGN KEY ("scheduled_task_id") REFERENCES "scheduled_tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The built-in org_admin (2) and user (3) roles export what they may read.
UPDATE "roles"
   SET "scopes" = ARRAY(SELECT DISTINCT s FROM unnest("scopes" || ARRAY['exports:create', 'exports:read', 'exports:delete']) AS s ORDER BY s)
 WHERE "id" IN (2, 3);
