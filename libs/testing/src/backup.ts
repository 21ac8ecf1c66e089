import { execFile } from 'node:child_process';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from './database';

const run = promisify(execFile);

/**
 * The backup of docs/operations.md "Backups", as an operator runs it: `pg_dump` in the custom
 * format (one consistent snapshot of the database) and a copy of the storage root.
 */
export async function backUp(databaseUrl: string, storageDir: string): Promise<{ dump: string; storage: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-backup-'));
  const dump = join(dir, 'framedesk.dump');
  await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, databaseUrl]);
  const storage = join(dir, 'storage');
  await cp(storageDir, storage, { recursive: true, preserveTimestamps: true });
  return { dump, storage };
}

/**
 * The restore: an empty database of its own filled by `pg_restore`, and the storage copy put
 * under `<root>/storage` of a new directory (what `startStack({ database, storageRoot })` runs on).
 */
export async function restore(backup: { dump: string; storage: string }): Promise<{
  database: TestDatabase;
  storageRoot: string;
}> {
  const database = await createTestDatabase({ migrated: false });
  try {
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${database.url}`, backup.dump]);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const storageRoot = await mkdtemp(join(tmpdir(), 'framedesk-restored-'));
  await cp(backup.storage, join(storageRoot, 'storage'), { recursive: true, preserveTimestamps: true });
  return { database, storageRoot };
}
