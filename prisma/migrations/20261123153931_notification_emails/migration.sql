-- CreateTable
CREATE TABLE "notification_emails" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "notification_id" INTEGER,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "digest_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(6),

    CONSTRAINT "notification_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_emails_user_id_created_at_idx" ON "notification_emails"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "notification_emails_user_id_status_idx" ON "notification_emails"("user_id", "status");

-- AddForeignKey
ALTER TABLE "notification_emails" ADD CONSTRAINT "notification_emails_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "notification_emails" ADD CONSTRAINT "notification_emails_status_check" CHECK ("status" IN ('queued', 'sent', 'throttled', 'digested', 'skipped', 'failed'));
