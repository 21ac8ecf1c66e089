// docker-compose.yml stays valid compose grammar and consistent with the env table. No engine
// runs here, but the compose client validates without one (`config -q`). `npm test` installs
// Debian's docker-compose where it is missing (as .ci/run does); without a client this test fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsTable } from '@framedesk/config';

const root = resolve(import.meta.dirname, '../..');
const compose = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');
const client = ['docker-compose', 'docker'].find(
  (c) =>
    spawnSync('sh', ['-c', `command -v ${c}`]).status === 0 &&
    (c === 'docker-compose' || spawnSync('docker', ['compose', 'version']).status === 0),
);

describe('docker-compose.yml', () => {
  it('is valid compose grammar', () => {
    expect(client, 'no compose client: install docker-compose (npm test does, with apt)').toBeDefined();
    const args =
      client === 'docker'
        ? ['compose', '-f', 'docker-compose.yml', 'config', '-q']
        : ['-f', 'docker-compose.yml', 'config', '-q'];
    const env = { ...process.env, SESSION_SECRET: 'a-test-secret' };
    expect(() => execFileSync(client!, args, { cwd: root, stdio: 'pipe', env })).not.toThrow();
    // The client does read the file: a broken one is refused.
    const broken = compose.replace(/^services:/m, 'services: [');
    const result = spawnSync(client!, [...args.slice(0, -4), '-f', '-', 'config', '-q'], {
      cwd: root,
      input: broken,
      env,
    });
    expect(result.status).not.toBe(0);
  });

  it('has no fallback SESSION_SECRET: without one, compose refuses and says which', () => {
    expect(client).toBeDefined();
    const args =
      client === 'docker'
        ? ['compose', '-f', 'docker-compose.yml', 'config', '-q']
        : ['-f', 'docker-compose.yml', 'config', '-q'];
    const { SESSION_SECRET: _ignored, ...env } = process.env;
    const result = spawnSync(client!, args, { cwd: root, env });
    expect(result.status).not.toBe(0);
    expect(String(result.stderr)).toContain('set SESSION_SECRET');
    expect(compose).not.toMatch(/SESSION_SECRET:\s*\$\{SESSION_SECRET:-/);
  });

  it('sets only variables the settings schema knows', () => {
    const known = new Set(settingsTable().map((r) => r.name));
    const environmentKeys = [...compose.matchAll(/^ {4,6}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    // Read by PostgreSQL's image, Node.js and glibc, not by our settings.
    const theirs = new Set(['NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
    const ours = environmentKeys.filter((k) => !k.startsWith('POSTGRES_') && !theirs.has(k));
    expect(ours.length).toBeGreaterThan(5);
    for (const key of ours) expect(known, key).toContain(key);
  });

  it('runs PostgreSQL, Redis, the API and several workers', () => {
    for (const service of ['postgres:', 'redis:', 'api:', 'worker:']) expect(compose).toContain(`\n  ${service}`);
    expect(compose).toMatch(/replicas: [2-9]/);
  });
});
