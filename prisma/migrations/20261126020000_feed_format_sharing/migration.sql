-- MISP's feed format is stored as the spec names it, `sharing`, so every answer says `sharing`.
-- Requests may still send the peer's `misp`; the service stores it as `sharing`, and the check
-- keeps `misp` out of the table from now on.
ALTER TABLE "feeds" DROP CONSTRAINT "feeds_source_format_check";
UPDATE "feeds" SET "source_format" = 'sharing' WHERE "source_format" = 'misp';
ALTER TABLE "feeds" ADD CONSTRAINT "feeds_source_format_check" CHECK ("source_format" IN ('sharing', 'csv', 'json', 'freetext'));

-- Uploads recorded with the peer's name since feed_uploads was created.
UPDATE "feed_uploads" SET "source_format" = 'sharing' WHERE "source_format" = 'misp';
