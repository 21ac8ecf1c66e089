// schema.prisma and prisma/migrations must describe the same database. This is the check CI
// relies on; the second test proves it can fail.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function drift(schema: string, migrations: string): Promise<number> {
  try {
    await run(
      process.execPath,
      [
        join(root, 'node_modules/prisma/build/index.js'),
        'migrate',
        'diff',
        '--from-migrations',
        migrations,
        '--to-schema',
        schema,
        '--exit-code',
      ],
      { cwd: root },
    );
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

describe('migrations drift', () => {
  const temp: string[] = [];
  afterAll(async () => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('finds the committed migrations in sync with schema.prisma', async () => {
    expect(await drift('prisma/schema.prisma', 'prisma/migrations')).toBe(0);
  });

  it('fails when a model changes without a migration', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'framedesk-drift-'));
    temp.push(dir);
    await cp(join(root, 'prisma'), join(dir, 'prisma'), { recursive: true });
    const schemaFile = join(dir, 'prisma/schema.prisma');
    const schema = await readFile(schemaFile, 'utf8');
    await writeFile(schemaFile, schema.replace('model Channel {\n', 'model Channel {\n  color String?\n'));
    expect(await drift(schemaFile, join(dir, 'prisma/migrations'))).toBe(2);
  });
});
