-- MISP servers to sync with (issue 26). authkey_cipher holds the API key encrypted (AES-256-GCM).
CREATE TABLE "servers" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "authkey_cipher" TEXT NOT NULL,
    "org_id" INTEGER NOT NULL,
    "pull_enabled" BOOLEAN NOT NULL DEFAULT false,
    "push_enabled" BOOLEAN NOT NULL DEFAULT false,
    "pull_rules" JSONB NOT NULL DEFAULT '{}',
    "push_rules" JSONB NOT NULL DEFAULT '{}',
    "pull_cursor" BIGINT NOT NULL DEFAULT 0,
    "last_pulled_at" TIMESTAMPTZ(6),
    "last_pushed_at" TIMESTAMPTZ(6),
    "created_by" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "servers_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "servers_org_id_idx" ON "servers"("org_id");
