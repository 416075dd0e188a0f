-- CreateTable
CREATE TABLE "hunts" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "description" TEXT,
    "query" TEXT NOT NULL,
    "hunt_type" TEXT NOT NULL,
    "index_target" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "scheduled_task_id" UUID,
    "last_run_at" TIMESTAMPTZ(6),
    "last_run_status" TEXT,
    "last_run_error" TEXT,
    "last_match_count" INTEGER,
    "last_success_at" TIMESTAMPTZ(6),
    "first_matched_at" TIMESTAMPTZ(6),
    "run_token" UUID,
    "run_lease_until" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hunts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "hunt_runs" (
    "id" BIGSERIAL NOT NULL,
    "hunt_id" INTEGER NOT NULL,
    "run_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "match_count" INTEGER,
    "new_hit_count" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "task_run_id" UUID,

    CONSTRAINT "hunt_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "hunt_results" (
    "hunt_id" INTEGER NOT NULL,
    "run_id" BIGINT NOT NULL,
    "run_at" TIMESTAMPTZ(6) NOT NULL,
    "total" INTEGER NOT NULL,
    "hits" JSONB NOT NULL,
    "hit_keys" TEXT[],

    CONSTRAINT "hunt_results_pkey" PRIMARY KEY ("hunt_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hunts_scheduled_task_id_key" ON "hunts"("scheduled_task_id");

-- CreateIndex
CREATE INDEX "hunts_user_id_created_at_idx" ON "hunts"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "hunt_runs_hunt_id_run_at_idx" ON "hunt_runs"("hunt_id", "run_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "hunt_results_run_id_key" ON "hunt_results"("run_id");

-- AddForeignKey
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_scheduled_task_id_fkey" FOREIGN KEY ("scheduled_task_id") REFERENCES "scheduled_tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hunt_runs" ADD CONSTRAINT "hunt_runs_hunt_id_fkey" FOREIGN KEY ("hunt_id") REFERENCES "hunts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hunt_results" ADD CONSTRAINT "hunt_results_hunt_id_fkey" FOREIGN KEY ("hunt_id") REFERENCES "hunts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hunt_results" ADD CONSTRAINT "hunt_results_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "hunt_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Checks
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_hunt_type_check" CHECK ("hunt_type" IN ('search', 'cpe', 'rules', 'fw-attack-pattern'));
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_index_target_check" CHECK ("index_target" IN ('attributes', 'events', 'correlations', 'attributes_and_events'));
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_status_check" CHECK ("status" IN ('active', 'paused'));
ALTER TABLE "hunts" ADD CONSTRAINT "hunts_last_run_status_check" CHECK ("last_run_status" IN ('succeeded', 'failed'));
ALTER TABLE "hunt_runs" ADD CONSTRAINT "hunt_runs_status_check" CHECK ("status" IN ('succeeded', 'failed'));
ALTER TABLE "hunt_runs" ADD CONSTRAINT "hunt_runs_trigger_check" CHECK ("trigger" IN ('manual', 'schedule'));

-- A deleted hunt (also when its owner is deleted) takes every schedule that runs it along.
CREATE FUNCTION "hunts_delete_schedules"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "scheduled_tasks" WHERE "task" = 'run_hunt' AND "kwargs" -> 'hunt_id' = to_jsonb(OLD."id");
  RETURN NULL;
END $$;
CREATE TRIGGER "hunts_delete_schedules" AFTER DELETE ON "hunts" FOR EACH ROW EXECUTE FUNCTION "hunts_delete_schedules"();
