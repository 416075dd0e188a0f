import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

const root = path.dirname(fileURLToPath(import.meta.url));
// `prisma generate` runs offline: point the CLI at a stub instead of letting it download an engine.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(root, "scripts/prisma-engine-stub.sh");

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "" },
});
