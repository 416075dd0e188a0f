-- Revocation at once: access tokens carry the user's token generation (claim `gen`) and are refused
-- once it moves. Tokens issued before this migration carry none and are refused: clients refresh once.
ALTER TABLE "users" ADD COLUMN "token_generation" INTEGER NOT NULL DEFAULT 0;

-- Whoever changes the row (a service, an administrator's SQL), disabling a user or changing their
-- role, organisation or password ends their access tokens. users_auth_change (AFTER UPDATE) then
-- tells every process's authentication cache.
CREATE FUNCTION "bump_token_generation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.token_generation := OLD.token_generation + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER "users_token_generation" BEFORE UPDATE OF "disabled", "role_id", "org_id", "password_hash" ON "users"
  FOR EACH ROW
  WHEN ((NEW.disabled AND NOT OLD.disabled) OR NEW.role_id <> OLD.role_id OR NEW.org_id <> OLD.org_id
        OR NEW.password_hash IS DISTINCT FROM OLD.password_hash)
  EXECUTE FUNCTION "bump_token_generation"();

-- Logout now ends every access token of the user through the generation: the per-token list goes.
DROP TABLE "revoked_access_tokens";
CREATE OR REPLACE FUNCTION "notify_auth_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('workbench_auth', TG_TABLE_NAME || ':' || OLD.id::text);
  ELSE
    PERFORM pg_notify('workbench_auth', TG_TABLE_NAME || ':' || NEW.id::text);
  END IF;
  RETURN NULL;
END $$;

-- Login throttling (src/auth/login-throttle.ts), shared by every API process.
CREATE TABLE "login_throttles" (
    "key" TEXT NOT NULL,
    "free_failures" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "pending" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(6),
    "throttle_audited" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "login_throttles_pkey" PRIMARY KEY ("key")
);

CREATE TABLE "login_known_addresses" (
    "user_id" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "last_success_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "login_known_addresses_pkey" PRIMARY KEY ("user_id","address")
);

CREATE INDEX "login_throttles_updated_at_idx" ON "login_throttles"("updated_at");

CREATE INDEX "login_known_addresses_last_success_at_idx" ON "login_known_addresses"("last_success_at");

ALTER TABLE "login_known_addresses" ADD CONSTRAINT "login_known_addresses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
