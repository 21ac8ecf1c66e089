#!/usr/bin/env node
// npm run db:new-migration -- <name>: writes prisma/migrations/<UTC timestamp>_<name>/migration.sql
// for the difference between the committed migrations and prisma/schema.prisma.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './setup.mjs';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:new-migration -- <name>   (lowercase letters, digits, underscores)');
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = join(root, 'prisma/migrations', `${stamp}_${name}`);
// The diff is written outside prisma/migrations: an empty new folder there would be read as a
// migration of its own, and the diff would come out empty.
const scratch = mkdtempSync(join(tmpdir(), 'framedesk-migration-'));
const draft = join(scratch, 'migration.sql');
const result = spawnSync(
  'npx',
  [
    'prisma',
    'migrate',
    'diff',
    '--from-migrations',
    'prisma/migrations',
    '--to-schema',
    'prisma/schema.prisma',
    '--script',
    '-o',
    draft,
  ],
  { cwd: root, stdio: 'inherit' },
);
const drafted = existsSync(draft) ? readFileSync(draft, 'utf8') : '';
if (result.status !== 0 || !/\S/.test(drafted.replace(/^--.*$/gm, ''))) {
  rmSync(scratch, { recursive: true, force: true });
  console.error(
    result.status !== 0 ? 'prisma migrate diff failed' : 'schema.prisma and the migrations agree: nothing to write',
  );
  process.exit(1);
}
mkdirSync(dir, { recursive: true });
const file = join(dir, 'migration.sql');
copyFileSync(draft, file);
rmSync(scratch, { recursive: true, force: true });
spawnSync('npx', ['prisma', 'generate'], { cwd: root, stdio: 'inherit' });
console.log(`wrote ${file}`);
