-- CreateTable
CREATE TABLE "notifications" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "entity_uuid" UUID,
    "payload" JSONB NOT NULL,
    "read" BOOLEAN NOT NULL DEFAULT false,
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_keys" (
    "key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_keys_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "notifications_dedupe_key_key" ON "notifications"("dedupe_key");

-- CreateIndex
CREATE INDEX "notifications_user_id_created_at_idx" ON "notifications"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notification_keys_created_at_idx" ON "notification_keys"("created_at");

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Follower lookups: which users follow a uuid, per list (raw SQL: expression GIN indexes).
CREATE INDEX "user_settings_follow_events_idx" ON "user_settings" USING GIN (("value"->'follow'->'events')) WHERE "namespace" = 'notifications';
CREATE INDEX "user_settings_follow_attributes_idx" ON "user_settings" USING GIN (("value"->'follow'->'attributes')) WHERE "namespace" = 'notifications';
CREATE INDEX "user_settings_follow_objects_idx" ON "user_settings" USING GIN (("value"->'follow'->'objects')) WHERE "namespace" = 'notifications';
CREATE INDEX "user_settings_follow_organisations_idx" ON "user_settings" USING GIN (("value"->'follow'->'organisations')) WHERE "namespace" = 'notifications';
