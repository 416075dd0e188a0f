-- CreateTable
CREATE TABLE "sharing_groups" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "releasability" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "org_id" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "local" BOOLEAN NOT NULL DEFAULT true,
    "roaming" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sharing_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sharing_group_orgs" (
    "sharing_group_id" INTEGER NOT NULL,
    "org_id" INTEGER NOT NULL,
    "extend" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "sharing_group_orgs_pkey" PRIMARY KEY ("sharing_group_id","org_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sharing_groups_uuid_key" ON "sharing_groups"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "sharing_groups_name_key" ON "sharing_groups"("name");

-- CreateIndex
CREATE INDEX "sharing_group_orgs_org_id_idx" ON "sharing_group_orgs"("org_id");

-- AddForeignKey
ALTER TABLE "sharing_groups" ADD CONSTRAINT "sharing_groups_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organisations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_group_orgs" ADD CONSTRAINT "sharing_group_orgs_sharing_group_id_fkey" FOREIGN KEY ("sharing_group_id") REFERENCES "sharing_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_group_orgs" ADD CONSTRAINT "sharing_group_orgs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Sharing group ids stored before sharing groups existed named nothing here (an import kept the
-- sender's number): such data reads as its owners' only, as it did, with no group.
UPDATE "events" SET "sharing_group_id" = NULL WHERE "sharing_group_id" IS NOT NULL;
UPDATE "objects" SET "sharing_group_id" = NULL WHERE "sharing_group_id" IS NOT NULL;
UPDATE "attributes" SET "sharing_group_id" = NULL WHERE "sharing_group_id" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_sharing_group_id_fkey" FOREIGN KEY ("sharing_group_id") REFERENCES "sharing_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "objects" ADD CONSTRAINT "objects_sharing_group_id_fkey" FOREIGN KEY ("sharing_group_id") REFERENCES "sharing_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_sharing_group_id_fkey" FOREIGN KEY ("sharing_group_id") REFERENCES "sharing_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Who belongs to which sharing group is part of what a caller may read: every process drops its
-- cached principals when a group or its membership changes (src/auth/auth-cache.ts).
CREATE FUNCTION "notify_sharing_group_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('workbench_auth', 'sharing_groups:' || COALESCE(NEW.sharing_group_id, OLD.sharing_group_id)::text);
  RETURN NULL;
END $$;

CREATE FUNCTION "notify_sharing_group_row_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('workbench_auth', 'sharing_groups:' || COALESCE(NEW.id, OLD.id)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER "sharing_group_orgs_auth_change" AFTER INSERT OR UPDATE OR DELETE ON "sharing_group_orgs" FOR EACH ROW EXECUTE FUNCTION "notify_sharing_group_change"();
CREATE TRIGGER "sharing_groups_auth_change" AFTER INSERT OR UPDATE OR DELETE ON "sharing_groups" FOR EACH ROW EXECUTE FUNCTION "notify_sharing_group_row_change"();

-- Built-in roles: org_admin (2) manages its organisation's sharing groups; user (3) and read_only (4)
-- read those their organisation belongs to.
UPDATE "roles"
   SET "scopes" = ARRAY(SELECT DISTINCT s FROM unnest("scopes" || ARRAY['sharing_groups:read', 'sharing_groups:create', 'sharing_groups:update', 'sharing_groups:delete']) AS s ORDER BY s)
 WHERE "id" = 2;
UPDATE "roles"
   SET "scopes" = ARRAY(SELECT DISTINCT s FROM unnest("scopes" || ARRAY['sharing_groups:read']) AS s ORDER BY s)
 WHERE "id" IN (3, 4);
