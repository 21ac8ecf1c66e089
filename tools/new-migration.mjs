#!/usr/bin/env node
// npm run db:new-migration -- <name>: writes prisma/migrations/<UTC timestamp>_<name>/migration.sql
// for the difference between the committed migrations and prisma/schema.prisma.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './setup.mjs';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:new-migration -- <name>   (lowercase letters, digits, underscores)');
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = join(root, 'prisma/migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
const file = join(dir, 'migration.sql');
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
    file,
  ],
  { cwd: root, stdio: 'inherit' },
);
if (result.status !== 0 || !existsSync(file) || !/\S/.test(readFileSync(file, 'utf8').replace(/^--.*$/gm, ''))) {
  rmSync(dir, { recursive: true, force: true });
  console.error(
    result.status !== 0 ? 'prisma migrate diff failed' : 'schema.prisma and the migrations agree: nothing to write',
  );
  process.exit(1);
}
spawnSync('npx', ['prisma', 'generate'], { cwd: root, stdio: 'inherit' });
console.log(`wrote ${file}`);
