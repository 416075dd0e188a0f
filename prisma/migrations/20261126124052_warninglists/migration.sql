-- AlterTable
ALTER TABLE "attributes" ADD COLUMN     "warnings" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "feeds" ADD COLUMN     "skip_warninglisted" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "warninglists" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "matching_attributes" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "entry_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "warninglists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "warninglist_entries" (
    "warninglist_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "warninglist_entries_pkey" PRIMARY KEY ("warninglist_id","position")
);

-- CreateIndex
CREATE UNIQUE INDEX "warninglists_name_key" ON "warninglists"("name");

-- AddForeignKey
ALTER TABLE "warninglist_entries" ADD CONSTRAINT "warninglist_entries_warninglist_id_fkey" FOREIGN KEY ("warninglist_id") REFERENCES "warninglists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every process compiles the enabled lists into in-memory matchers: any change to the lists (import,
-- enable, disable, whoever makes it) tells them to drop theirs when it commits.
CREATE FUNCTION "notify_warninglists_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('workbench_warninglists', '');
  RETURN NULL;
END $$;
CREATE TRIGGER "warninglists_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "warninglists" FOR EACH STATEMENT EXECUTE FUNCTION "notify_warninglists_change"();

-- Built-in roles read the warninglists (org_admin, user, read_only); changing them is the administrator's (warninglists:update is admin-level).
UPDATE "roles"
   SET "scopes" = ARRAY(SELECT DISTINCT s FROM unnest("scopes" || ARRAY['warninglists:read']) AS s ORDER BY s)
 WHERE "id" IN (2, 3, 4);
