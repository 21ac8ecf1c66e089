// Drives the real, unmodified Prisma CLI against the real local PostgreSQL, with
// tools/prisma-engine/schema-engine.mjs standing in for the native schema engine.
//
// Run: npx vitest run --config tools/vite.config.ts prisma-engine (part of npm test)
//
// Each run works in its own temp directory (schema.prisma, prisma.config.mjs, migrations/) and
// its own uniquely named database, dropped at the end. PRISMA_ENGINE_TEST_PG overrides the server
// URL (default postgresql://postgres@127.0.0.1:5432).
import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const repoRoot = resolve(here, '../..');
const prismaCli = join(repoRoot, 'node_modules/prisma/build/index.js');
const engineScript = join(here, 'schema-engine.mjs');

const server = (process.env.PRISMA_ENGINE_TEST_PG ?? 'postgresql://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const dbName = `prisma_engine_it_${process.pid}_${Date.now().toString(36)}`;
const databaseUrl = `${server}/${dbName}`;
const adminUrl = `${server}/postgres`;

const TIMEOUT = 120_000;

const SCHEMA = `
generator client {
  provider = "prisma-client"
  output   = "./generated"
}

datasource db {
  provider = "postgresql"
}

model Frame {
  id        Int      @id @default(autoincrement())
  title     String
  status    String   @default("pending")
  createdAt DateTime @default(now())
}
`;

// Appended to the generated init migration: a `$$` body full of `;` (adapter-pg's
// executeScript split it apart) and a CHECK constraint (its pg_constraint.contype is the
// internal "char" type, OID 18, that adapter-pg refuses to read).
const HAND_WRITTEN_SQL = `
-- Trim titles on write: a plpgsql body with semicolons inside $$ ... $$
CREATE FUNCTION frame_trim_title() RETURNS trigger AS $$
BEGIN
  NEW.title := btrim(NEW.title);
  IF NEW.title = '' THEN
    RAISE EXCEPTION 'empty title; refusing';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER frame_trim_title BEFORE INSERT OR UPDATE ON "Frame"
  FOR EACH ROW EXECUTE FUNCTION frame_trim_title();

ALTER TABLE "Frame" ADD CONSTRAINT "Frame_status_check" CHECK (status IN ('pending', 'done'));
`;

type CliResult = { code: number; stdout: string; stderr: string };

let workDir = '';

/** Run `prisma <args>` in the temp project, with the wasm engine script as schema engine. */
function prisma(args: string[]): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [prismaCli, ...args],
      {
        cwd: workDir,
        timeout: 90_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          PRISMA_SCHEMA_ENGINE_BINARY: engineScript,
          DATABASE_URL: databaseUrl,
          CHECKPOINT_DISABLE: '1',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

function describeRun(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function shadowDatabases(): Promise<string[]> {
  const rows = await query<{ datname: string }>(
    adminUrl,
    `SELECT datname FROM pg_database WHERE datname LIKE 'prisma\\_migrate\\_shadow\\_db\\_%'`,
  );
  return rows.map((r) => r.datname).sort();
}

describe('schema-engine.mjs under the real Prisma CLI', { timeout: TIMEOUT }, () => {
  let shadowBefore: string[] = [];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'prisma-engine-it-'));
    await writeFile(join(workDir, 'schema.prisma'), SCHEMA);
    // A plain object is accepted as a Prisma config (no import of prisma/config needed from /tmp).
    await writeFile(
      join(workDir, 'prisma.config.mjs'),
      `export default {
  schema: './schema.prisma',
  migrations: { path: './migrations' },
  datasource: { url: process.env.DATABASE_URL },
};
`,
    );
    shadowBefore = await shadowDatabases();
  }, TIMEOUT);

  afterAll(async () => {
    await query(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, TIMEOUT);

  it('prints a version line', async () => {
    const r = await new Promise<string>((res, rej) =>
      execFile(process.execPath, [engineScript, '--version'], (err, stdout) => (err ? rej(err) : res(String(stdout)))),
    );
    expect(r).toMatch(/^schema-engine-cli [0-9a-f]{40}\n$/);
  });

  it('migrate diff --from-empty --to-schema --script writes the init migration', async () => {
    const r = await prisma(['migrate', 'diff', '--from-empty', '--to-schema', 'schema.prisma', '--script']);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toContain('CREATE TABLE "Frame"');

    const dir = join(workDir, 'migrations', '20250101000000_init');
    await mkdir(dir, { recursive: true });
    const out = await prisma([
      'migrate',
      'diff',
      '--from-empty',
      '--to-schema',
      'schema.prisma',
      '--script',
      '-o',
      join(dir, 'migration.sql'),
    ]);
    expect(out.code, describeRun(out)).toBe(0);
    expect(await readFile(join(dir, 'migration.sql'), 'utf8')).toContain('CREATE TABLE "Frame"');
    await appendFile(join(dir, 'migration.sql'), HAND_WRITTEN_SQL);
  });

  it('migrate deploy creates the database and applies the migration in one piece', async () => {
    const r = await prisma(['migrate', 'deploy']);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toContain('20250101000000_init');

    const applied = await query<{ migration_name: string; ok: boolean }>(
      databaseUrl,
      `SELECT migration_name, finished_at IS NOT NULL AND rolled_back_at IS NULL AS ok FROM _prisma_migrations`,
    );
    expect(applied).toEqual([{ migration_name: '20250101000000_init', ok: true }]);

    // The $$ body survived intact: the trigger trims, and raises on an empty title.
    const [row] = await query<{ title: string }>(
      databaseUrl,
      `INSERT INTO "Frame"(title) VALUES ('  padded  ') RETURNING title`,
    );
    expect(row?.title).toBe('padded');
    await expect(query(databaseUrl, `INSERT INTO "Frame"(title) VALUES ('   ')`)).rejects.toThrow(
      /empty title; refusing/,
    );
    await expect(query(databaseUrl, `INSERT INTO "Frame"(title, status) VALUES ('x', 'bogus')`)).rejects.toThrow(
      /Frame_status_check/,
    );
  });

  it('migrate status reports the database up to date', async () => {
    const r = await prisma(['migrate', 'status']);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toContain('Database schema is up to date');
  });

  // Replays the migrations into a temporary shadow database and describes it, reading
  // pg_constraint.contype ("char", OID 18) for the CHECK constraint.
  it('migrate diff --from-migrations --exit-code: 0 in sync, 2 on drift', async () => {
    const inSync = await prisma([
      'migrate',
      'diff',
      '--from-migrations',
      'migrations',
      '--to-schema',
      'schema.prisma',
      '--exit-code',
    ]);
    expect(inSync.code, describeRun(inSync)).toBe(0);

    await writeFile(
      join(workDir, 'drifted.prisma'),
      SCHEMA.replace('createdAt DateTime', 'note String?\n  createdAt DateTime'),
    );
    const drift = await prisma([
      'migrate',
      'diff',
      '--from-migrations',
      'migrations',
      '--to-schema',
      'drifted.prisma',
      '--exit-code',
    ]);
    expect(drift.code, describeRun(drift)).toBe(2);
    expect(drift.stdout).toContain('Added column `note`');
  });

  it('a failing migration is rolled back as a whole and reported', async () => {
    const dir = join(workDir, 'migrations', '20250102000000_broken');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'migration.sql'), 'CREATE TABLE "Half" (id int);\nSELECT no_such_function();\n');

    const r = await prisma(['migrate', 'deploy']);
    expect(r.code, describeRun(r)).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('no_such_function');
    const [half] = await query<{ present: boolean }>(
      databaseUrl,
      `SELECT to_regclass('"Half"') IS NOT NULL AS present`,
    );
    expect(half?.present).toBe(false);

    const resolved = await prisma(['migrate', 'resolve', '--rolled-back', '20250102000000_broken']);
    expect(resolved.code, describeRun(resolved)).toBe(0);
    await rm(dir, { recursive: true });
    const status = await prisma(['migrate', 'status']);
    expect(status.code, describeRun(status)).toBe(0);
  });

  it('leaves no shadow database behind', async () => {
    expect(await shadowDatabases()).toEqual(shadowBefore);
  });
});
