-- Authentication caches (src/auth/auth-cache.ts) in every API process drop an entry as soon as the
-- row behind it changes, whoever changed it: these triggers announce every change on one channel.
-- NOTIFY is transactional, so listeners hear of a change exactly when it commits.
CREATE FUNCTION "notify_auth_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'revoked_access_tokens' THEN
    PERFORM pg_notify('workbench_auth', 'revoked_access_tokens:' || NEW.jti::text);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('workbench_auth', TG_TABLE_NAME || ':' || OLD.id::text);
  ELSE
    PERFORM pg_notify('workbench_auth', TG_TABLE_NAME || ':' || NEW.id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "api_keys_auth_change" AFTER UPDATE OR DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "users_auth_change" AFTER UPDATE OR DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "roles_auth_change" AFTER UPDATE OR DELETE ON "roles" FOR EACH ROW EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "revoked_access_tokens_auth_change" AFTER INSERT ON "revoked_access_tokens" FOR EACH ROW EXECUTE FUNCTION "notify_auth_change"();
