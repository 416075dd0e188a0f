-- CreateTable
CREATE TABLE "scheduled_tasks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "args" JSONB NOT NULL DEFAULT '[]',
    "kwargs" JSONB NOT NULL DEFAULT '{}',
    "schedule_type" TEXT NOT NULL,
    "interval_every" INTEGER,
    "interval_period" TEXT,
    "cron_minute" TEXT,
    "cron_hour" TEXT,
    "cron_day_of_week" TEXT,
    "cron_day_of_month" TEXT,
    "cron_month_of_year" TEXT,
    "timezone" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "owner_id" INTEGER,
    "grant_scopes" TEXT[],
    "next_run_at" TIMESTAMPTZ(6),
    "last_run_at" TIMESTAMPTZ(6),
    "total_run_count" INTEGER NOT NULL DEFAULT 0,
    "last_run_id" UUID,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "scheduled_task_id" UUID,
    "task" TEXT NOT NULL,
    "args" JSONB NOT NULL DEFAULT '[]',
    "kwargs" JSONB NOT NULL DEFAULT '{}',
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL,
    "last_error" TEXT,
    "result" JSONB,
    "progress" JSONB,
    "run_as_user_id" INTEGER,
    "grant_scopes" TEXT[],
    "job_id" BIGINT,
    "queued_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "task_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_processes" (
    "worker_id" TEXT NOT NULL,
    "lock_key" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "worker_processes_pkey" PRIMARY KEY ("worker_id")
);

-- CreateIndex
CREATE INDEX "scheduled_tasks_owner_id_idx" ON "scheduled_tasks"("owner_id");

-- CreateIndex
CREATE INDEX "task_runs_scheduled_task_id_queued_at_idx" ON "task_runs"("scheduled_task_id", "queued_at");

-- CreateIndex
CREATE INDEX "task_runs_run_as_user_id_queued_at_idx" ON "task_runs"("run_as_user_id", "queued_at");

-- CreateIndex
CREATE INDEX "task_runs_status_idx" ON "task_runs"("status");

-- CreateIndex
CREATE INDEX "worker_processes_lock_key_idx" ON "worker_processes"("lock_key");

-- Due schedules, found by the tick job (raw SQL: a partial index).
CREATE INDEX "scheduled_tasks_due_idx" ON "scheduled_tasks"("next_run_at") WHERE "enabled";
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_status_check" CHECK ("status" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));
ALTER TABLE "scheduled_tasks" ADD CONSTRAINT "scheduled_tasks_type_check" CHECK ("schedule_type" IN ('interval', 'crontab'));
