import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';

const workspaceRoot = resolve(import.meta.dirname, '../../..');
const migrationsDir = join(workspaceRoot, 'prisma/migrations');

/** Where test databases are created; `npm test` points it at the server it prepared. */
function adminUrl(): string {
  // eslint-disable-next-line no-restricted-properties -- test harness: the settings object does not exist yet.
  return process.env['FRAMEDESK_TEST_ADMIN_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function migrations(): { name: string; sql: string }[] {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8') }));
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A template database with every committed migration applied, named after their content, so a
 * new test database is a cheap `CREATE DATABASE … TEMPLATE`. Built once per migration set.
 */
async function ensureTemplate(): Promise<string> {
  const all = migrations();
  const hash = createHash('sha256')
    .update(all.map((m) => m.name + m.sql).join('\0'))
    .digest('hex')
    .slice(0, 16);
  const template = `framedesk_tpl_${hash}`;
  await withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock(7243001)');
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (rowCount) return;
      const building = `${template}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      const client = new pg.Client({ connectionString: withDatabase(adminUrl(), building) });
      await client.connect();
      try {
        for (const migration of all) await client.query(migration.sql);
      } finally {
        await client.end();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(7243001)');
    }
  });
  return template;
}

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  /** Runs one statement on a connection of its own (closed after it); resolves with the rows. */
  query<Row = any>(sql: string, params?: unknown[]): Promise<Row[]>; // eslint-disable-line @typescript-eslint/no-explicit-any
  drop(): Promise<void>;
}

async function queryOnce<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/**
 * A fresh database of this test file's own, migrated unless `migrated: false` (then empty, for a
 * test that migrates it as an operator would); `drop()` removes it.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const template = options.migrated === false ? 'template0' : await ensureTemplate();
  const name = `fd_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => {
    // CREATE DATABASE … TEMPLATE fails while another session is connected to the template.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  const url = withDatabase(adminUrl(), name);
  return {
    url,
    name,
    query: (sql, params) => queryOnce(url, sql, params),
    drop: () => withAdmin(async (admin) => void (await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/**
 * How many other sessions of `client`'s database wait for a lock now: the other side of a race
 * a test holds open (a row or table lock it took) has arrived and is blocked.
 */
export async function lockWaiters(client: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]!.n;
}
