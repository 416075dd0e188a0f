-- Sightings name their organisation by a foreign key (GraphQL's Sighting.organisation reads it as a
-- relation). org_id had none: a sighting may still name an organisation deleted since; it reads as
-- no organisation (as the name lookup did), so those ids are cleared before the key is added.
UPDATE "sightings" s SET "org_id" = NULL
 WHERE s."org_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "organisations" o WHERE o."id" = s."org_id");

-- CreateIndex
CREATE INDEX "sightings_org_id_idx" ON "sightings"("org_id");

-- AddForeignKey: deleting an organisation keeps its sightings, without an organisation.
ALTER TABLE "sightings" ADD CONSTRAINT "sightings_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organisations"("id") ON DELETE SET NULL ON UPDATE CASCADE;
