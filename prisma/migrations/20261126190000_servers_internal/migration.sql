-- A server marked internal is another instance of the same community (MISP's Server.internal):
-- pulls keep the remote's distribution and pushes send community-only data, instead of MISP's downgrades.
ALTER TABLE "servers" ADD COLUMN "internal" BOOLEAN NOT NULL DEFAULT false;
