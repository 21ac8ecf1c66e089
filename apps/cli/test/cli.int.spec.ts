// The admin CLI against a real database of its own: as people run it (a real process) where the
// process itself is under test (one JSON line on stdout, the api and worker refusing to start),
// in the test's own process (`runCli`, the same `run` main.ts calls) for the commands' logic.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runApp, type TestDatabase } from '@framedesk/testing';
import { runCli } from './in-process';

const root = resolve(import.meta.dirname, '../../..');

const run = (app: 'cli' | 'api' | 'worker', args: string[], env: Record<string, string>, stdin = '') =>
  runApp(app, args, env, stdin);

describe('framedesk CLI', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url };
    dir = await mkdtemp(join(tmpdir(), 'framedesk-cli-'));
  });
  afterAll(async () => {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const query = (sql: string, params: unknown[] = []) => database.query(sql, params);

  it('creates an agent with its channel and prints exactly one JSON line; the key is stored only as a hash', async () => {
    const result = await run('cli', ['agent', 'create', 'a1', '--channel', 'c1', '--json'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0]!) as { agent: string; api_key: string };
    expect(Object.keys(printed)).toEqual(['agent', 'api_key']);
    expect(printed.agent).toBe('a1');
    expect(printed.api_key).toMatch(/^fd_live_[0-9A-Za-z]{33}$/);

    const keys = await query('SELECT * FROM api_keys');
    expect(keys).toHaveLength(1);
    expect(keys[0].hash).toBe(createHash('sha256').update(printed.api_key).digest('hex'));
    expect(JSON.stringify(keys)).not.toContain(printed.api_key);
    expect(printed.api_key.startsWith(keys[0].prefix)).toBe(true);
    const channels = await query('SELECT c.slug FROM agent_channels ac JOIN channels c ON c.id = ac.channel_id');
    expect(channels.map((c) => c.slug)).toEqual(['c1']);
  });

  it('lists, creates and revokes keys by prefix', async () => {
    // An agent of its own: the test runs alone (-t) as well as after the one above.
    expect((await runCli(['agent', 'create', 'k1', '--channel', 'c1'], env)).code).toBe(0);
    const key = ((await runCli(['key', 'create', 'k1', '--json'], env)).json() as { api_key: string }).api_key;
    const listed = (await runCli(['key', 'list', 'k1'], env)).out.join('\n');
    expect(listed).toContain(key.slice(0, 16));
    expect(listed).not.toContain(key);
    expect((await runCli(['key', 'revoke', key.slice(0, 16)], env)).code).toBe(0);
    const rows = await query('SELECT revoked_at FROM api_keys WHERE prefix = $1', [key.slice(0, 16)]);
    expect(rows[0].revoked_at).toBeInstanceOf(Date);
  });

  it('creates a reviewer from a password on standard input, hashed with scrypt', async () => {
    const result = await runCli(
      ['reviewer', 'create', 'Ana@Example.com', '--password-stdin'],
      env,
      'correct horse battery\n',
    );
    expect(result.code).toBe(0);
    const rows = await query('SELECT email, password_hash FROM reviewers');
    expect(rows).toEqual([{ email: 'ana@example.com', password_hash: expect.stringMatching(/^scrypt\$/) }]);
  });

  it.each([
    [['agent', 'create', 'Bad Slug', '--channel', 'c1']],
    [['agent', 'create', 'a2']],
    [['agent', 'create', 'a2', '--channel', 'c1', '--bogus']],
    [['channel']],
    [['nonsense', 'command']],
    [['reviewer', 'create', 'x@y.z', '--role', 'owner']],
  ])('refuses bad arguments %j with one line and exit 2, never a stack trace', async (args) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).not.toMatch(/\n\s+at /);
  });

  describe('an invalid configuration with three violations', () => {
    let file: string;
    beforeAll(async () => {
      const config = JSON.parse(await readFile(join(root, 'config/project.example.json'), 'utf8'));
      config.api.metadata_max_bytes = 0;
      delete config.storage;
      config.approval_defaults.initial_visibility = 'everyone';
      file = join(dir, 'bad.json');
      await writeFile(file, JSON.stringify(config));
    });
    const expectAllThree = (text: string) => {
      expect(text).toContain('/api/metadata_max_bytes');
      expect(text).toContain('/storage');
      expect(text).toContain('/approval_defaults/initial_visibility');
    };

    it('is reported in full by config check, which exits non-zero', async () => {
      const result = await runCli(['config', 'check', file], env);
      expect(result.code).toBe(1);
      expectAllThree(result.err.join('\n'));
      expect(result.err.join('\n')).toContain('3 violations');
    });

    it.each(['api', 'worker'] as const)('stops the %s at start with the same report', async (app) => {
      const result = await run(app, [], { ...env, FRAMEDESK_CONFIG: file, API_PORT: '0', WORKER_HEALTH_PORT: '0' });
      expect(result.code).toBe(1);
      expectAllThree(result.stderr);
    });

    it('accepts the committed example', async () => {
      const result = await runCli(['config', 'check', join(root, 'config/project.example.json')], env);
      expect(result.code).toBe(0);
    });
  });
});
