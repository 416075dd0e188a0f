-- Identity core: organisations, roles, users, settings, refresh tokens, audit log.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE "organisations" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT,
    "nationality" TEXT,
    "sector" TEXT,
    "contacts" TEXT,
    "local" BOOLEAN NOT NULL DEFAULT true,
    "restricted_to_domain" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "landing_page" TEXT,
    "created_by" INTEGER,
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "date_modified" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "organisations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "organisations_uuid_key" ON "organisations"("uuid");
CREATE UNIQUE INDEX "organisations_name_key" ON "organisations"("name");

CREATE TABLE "roles" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "default_role" BOOLEAN NOT NULL DEFAULT false,
    "created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "roles_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "roles_name_key" ON "roles"("name");

CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT,
    "role_id" INTEGER NOT NULL,
    "org_id" INTEGER NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "users_email_lower_case" CHECK ("email" = lower("email"))
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");
CREATE INDEX "users_role_id_idx" ON "users"("role_id");
CREATE INDEX "users_org_id_idx" ON "users"("org_id");

CREATE TABLE "user_settings" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "namespace" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "user_settings_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "user_settings_user_id_namespace_key" ON "user_settings"("user_id", "namespace");

CREATE TABLE "runtime_settings" (
    "namespace" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "runtime_settings_pkey" PRIMARY KEY ("namespace")
);

CREATE TABLE "refresh_tokens" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "token_hash" TEXT NOT NULL,
    "family_id" UUID NOT NULL,
    "scope" TEXT,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),
    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens"("token_hash");
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens"("family_id");
CREATE INDEX "refresh_tokens_user_id_idx" ON "refresh_tokens"("user_id");

CREATE TABLE "audit_logs" (
    "id" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_user_id" INTEGER,
    "actor_type" TEXT NOT NULL,
    "actor_credential_id" INTEGER,
    "resource_type" TEXT,
    "resource_id" INTEGER,
    "action" TEXT NOT NULL,
    "ip_address" TEXT,
    "user_agent" TEXT,
    "metadata" JSONB,
    CONSTRAINT "audit_logs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_logs_created_at_idx" ON "audit_logs"("created_at");
CREATE INDEX "audit_logs_action_created_at_idx" ON "audit_logs"("action", "created_at");
CREATE INDEX "audit_logs_actor_user_id_created_at_idx" ON "audit_logs"("actor_user_id", "created_at");

ALTER TABLE "users" ADD CONSTRAINT "users_role_id_fkey" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "users" ADD CONSTRAINT "users_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "user_settings" ADD CONSTRAINT "user_settings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Seeded roles. Role 1 is the administrator (scope "*"); ids are fixed because the spec names role 1.
INSERT INTO "roles" ("id", "name", "scopes", "default_role") VALUES
  (1, 'admin', ARRAY['*'], false),
  (2, 'org_admin', ARRAY['users:*','organisations:read','roles:read','events:*','attributes:*','objects:*','tags:*','galaxies:*','taxonomies:*','sightings:*','correlations:*','feeds:*','hunts:*','notifications:*','user_settings:*','api_keys:read','api_keys:create','api_keys:update','api_keys:delete','settings:read','tasks:*','mcp:*'], false),
  (3, 'user', ARRAY['users:me','organisations:read','roles:read','events:read','events:create','events:update','events:tag','attributes:read','attributes:create','attributes:update','attributes:delete','attributes:tag','objects:read','objects:create','objects:update','objects:delete','tags:read','tags:create','galaxies:read','taxonomies:read','sightings:read','sightings:create','correlations:read','feeds:read','hunts:create','hunts:read','hunts:update','hunts:delete','hunts:run','notifications:read','notifications:update','user_settings:read','user_settings:update','api_keys:read','api_keys:create','api_keys:update','api_keys:delete'], true),
  (4, 'read_only', ARRAY['users:me','organisations:read','roles:read','events:read','attributes:read','objects:read','tags:read','galaxies:read','taxonomies:read','sightings:read','correlations:read','feeds:read','hunts:read','notifications:read','user_settings:read','user_settings:update','api_keys:read'], false);
SELECT setval(pg_get_serial_sequence('"roles"', 'id'), 100);

CREATE TABLE "revoked_access_tokens" (
    "jti" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT "revoked_access_tokens_pkey" PRIMARY KEY ("jti")
);
CREATE INDEX "revoked_access_tokens_expires_at_idx" ON "revoked_access_tokens"("expires_at");
