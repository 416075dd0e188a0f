#!/bin/sh
# Prisma's CLI insists on a schema-engine binary even for `generate`, and wants to download one.
# This machine is offline, and generate does not need the engine, so the CLI gets this stub.
# Migrations are applied by src/platform/db/migrate.ts instead.
echo "schema-engine stub: not available offline (see prisma.config.ts)" >&2
exit 1
