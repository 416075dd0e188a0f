-- Uploads belong to the uploader's organisation (feed_uploads), and the secret that namespaces
-- derived feed uuids is generated once per instance (instance_secrets).
CREATE TABLE "feed_uploads" (
    "key" TEXT NOT NULL,
    "org_id" INTEGER,
    "user_id" INTEGER,
    "filename" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "source_format" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "feed_uploads_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "feed_uploads_created_at_idx" ON "feed_uploads"("created_at");

CREATE TABLE "instance_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "instance_secrets_pkey" PRIMARY KEY ("name")
);

-- Uploads that local feeds already use belong to the (first) feed's organisation.
INSERT INTO "feed_uploads" ("key", "org_id", "user_id", "filename", "size", "source_format", "created_at")
SELECT DISTINCT ON (f."url")
       f."url", f."org_id", f."created_by",
       COALESCE(f."settings"->'localFile'->>'filename', ''),
       CASE WHEN f."settings"->'localFile'->>'size' ~ '^[0-9]{1,18}$' THEN (f."settings"->'localFile'->>'size')::bigint ELSE 0 END,
       CASE WHEN f."source_format" = 'misp' THEN 'sharing' ELSE f."source_format" END,
       f."created_at"
  FROM "feeds" f
 WHERE f."input_source" = 'local'
 ORDER BY f."url", f."id";
