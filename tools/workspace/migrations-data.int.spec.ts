// Migrations that move data, applied to a database that holds rows from before them, as an
// operator's `npm run db:migrate` would on an upgrade.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';

const migrations = resolve(import.meta.dirname, '../../prisma/migrations');
const ROLES = '20261126034024_reviewer_roles_and_channels';

let database: TestDatabase;
let client: pg.Client;
const apply = async (names: string[]) => {
  for (const name of names) await client.query(readFileSync(join(migrations, name, 'migration.sql'), 'utf8'));
};

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
});

it('makes every reviewer who existed before roles an admin (nobody is locked out) and keeps when they were last seen', async () => {
  const all = readdirSync(migrations, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(all).toContain(ROLES);
  await apply(all.filter((name) => name < ROLES));
  await client.query(`INSERT INTO reviewers (id, email, password_hash) VALUES ('r1', 'ana@example.com', 'scrypt$x')`);
  await client.query(`INSERT INTO reviewers (id, email, password_hash) VALUES ('r2', 'ben@example.com', 'scrypt$y')`);
  await client.query(
    `INSERT INTO reviewer_sessions (id, reviewer_id, csrf_token, last_seen_at, expires_at)
     VALUES ('s1', 'r1', 'c', '2026-11-20T10:00:00Z', now() + interval '1 hour')`,
  );
  await apply(all.filter((name) => name >= ROLES));
  const { rows } = await client.query('SELECT email, role, last_seen_at, password_hash FROM reviewers ORDER BY email');
  expect(rows).toEqual([
    {
      email: 'ana@example.com',
      role: 'admin',
      last_seen_at: new Date('2026-11-20T10:00:00Z'),
      password_hash: 'scrypt$x',
    },
    { email: 'ben@example.com', role: 'admin', last_seen_at: null, password_hash: 'scrypt$y' },
  ]);
  // Accounts created afterwards are reviewers unless told otherwise.
  await client.query(`INSERT INTO reviewers (id, email) VALUES ('r3', 'cy@example.com')`);
  expect((await client.query(`SELECT role FROM reviewers WHERE id = 'r3'`)).rows).toEqual([{ role: 'reviewer' }]);
});
