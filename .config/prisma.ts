// Prisma CLI configuration (Prisma 7 finds `.config/prisma.ts` in the working directory;
// elsewhere pass `--config <repo>/.config/prisma.ts`).
//
// Prisma resolves relative paths in this file against this file's directory (.config/),
// so every path below is built from the repository root explicitly.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// This machine cannot download Prisma's native schema-engine binary: run the wasm-backed
// stand-in instead. Setting PRISMA_SCHEMA_ENGINE_BINARY yourself still wins.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(repoRoot, 'tools/prisma-engine/schema-engine.mjs');

const shadowDatabaseUrl = process.env.SHADOW_DATABASE_URL;

export default defineConfig({
  schema: path.join(repoRoot, 'prisma/schema.prisma'),
  migrations: {
    path: path.join(repoRoot, 'prisma/migrations'),
  },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/framedesk',
    // Optional. Without it the schema engine creates a temporary shadow database on the main
    // server and drops it afterwards (the role needs CREATEDB).
    ...(shadowDatabaseUrl ? { shadowDatabaseUrl } : {}),
  },
});
