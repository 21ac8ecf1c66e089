// Account lifecycle from the CLI, against a real API process: each change holds on the very next request.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  makePng,
  type RunningProcess,
  startApp,
  testRedisUrl,
  type TestDatabase,
  waitForHttp,
} from '@framedesk/testing';
import { runCli } from './in-process';

const PASSWORD = 'correct horse battery';

describe('account lifecycle commands', () => {
  let database: TestDatabase;
  let redis: ReturnType<typeof createTestRedisPrefix>;
  let scratch: string;
  let api: RunningProcess;
  let url: string;
  let env: Record<string, string>;

  const cli = (args: string[], stdin = '') => runCli(args, env, stdin);
  const query = (sql: string, params: unknown[] = []) => database.query(sql, params);
  const login = async (password = PASSWORD) => {
    const res = await fetch(`${url}/review/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'rita@example.com', password }),
    });
    return { status: res.status, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '' };
  };
  const session = (cookie: string) => fetch(`${url}/review/session`, { headers: { cookie } }).then((r) => r.status);
  const list = (key: string) =>
    fetch(`${url}/v1/frame-submissions`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
      status: r.status,
      code: r.status >= 400 ? ((await r.json()) as { code: string }).code : null,
    }));
  const post = (key: string, channel: string) => {
    const form = new FormData();
    form.append(
      'metadata',
      new Blob([JSON.stringify({ agent_slug: 'bot', channel_slug: channel, date: '20261122' })], {
        type: 'application/json',
      }),
    );
    form.append('image', new Blob([new Uint8Array(makePng(8, 8))], { type: 'image/png' }), 'f.png');
    return fetch(`${url}/v1/frame-submissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() },
      body: form,
    }).then(async (r) => ((await r.json()) as { code?: string }).code ?? String(r.status));
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = createTestRedisPrefix();
    scratch = await mkdtemp(join(tmpdir(), 'framedesk-accounts-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = { DATABASE_URL: database.url };
    api = startApp('api', {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: redis.prefix,
      API_PORT: String(port),
      STORAGE_FS_ROOT: join(scratch, 'storage'),
      LOG_LEVEL: 'silent',
    });
    expect((await cli(['reviewer', 'create', 'rita@example.com', '--password-stdin'], PASSWORD)).code).toBe(0);
    expect((await cli(['agent', 'create', 'bot', '--channel', 'news'])).code).toBe(0);
    expect((await cli(['channel', 'create', 'sports'])).code).toBe(0);
    await waitForHttp(`${url}/healthz`, 60_000, api);
  }, 90_000);
  afterAll(async () => {
    await api?.stop('SIGKILL');
    await database?.drop();
    await redis?.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  it('reviewer disable refuses the live cookie on the next request and records who and when; enable lets them sign in', async () => {
    const { cookie } = await login();
    expect(await session(cookie)).toBe(200);
    const disabled = await cli(['reviewer', 'disable', 'rita@example.com', '--json']);
    expect([disabled.code, disabled.out.length, disabled.json()]).toEqual([
      0,
      1,
      { email: 'rita@example.com', disabled: true },
    ]);
    expect(await session(cookie)).toBe(401);
    expect((await login()).status).toBe(401);
    const events = await query("SELECT action, actor, created_at FROM account_events WHERE subject_type = 'reviewer'");
    expect(events).toEqual([
      { action: 'created', actor: expect.stringMatching(/^cli/), created_at: expect.any(Date) },
      { action: 'disabled', actor: expect.stringMatching(/^cli/), created_at: expect.any(Date) },
    ]);
    expect((await cli(['reviewer', 'list', '--json'])).json()).toEqual([
      expect.objectContaining({ email: 'rita@example.com', disabled_at: expect.any(String), sessions: 0 }),
    ]);
    expect((await cli(['reviewer', 'enable', 'rita@example.com'])).code).toBe(0);
    expect((await login()).status).toBe(201);
  });

  it('reviewer set-password ends every session; sessions revoke ends them without a new password', async () => {
    const first = await login();
    const reset = await cli(
      ['reviewer', 'set-password', 'rita@example.com', '--password-stdin', '--json'],
      'a new password!\n',
    );
    expect(reset.code).toBe(0);
    expect(reset.json().sessions_ended).toBeGreaterThanOrEqual(1);
    expect(await session(first.cookie)).toBe(401);
    expect((await login()).status).toBe(401);
    const second = await login('a new password!');
    expect(second.status).toBe(201);
    expect((await cli(['reviewer', 'sessions', 'revoke', 'rita@example.com', '--json'])).json()).toEqual({
      email: 'rita@example.com',
      sessions_ended: 1,
    });
    expect(await session(second.cookie)).toBe(401);
  });

  it('agent disable refuses its keys with 403 forbidden on the next request; channels add/remove take effect at once', async () => {
    const key = (await cli(['key', 'create', 'bot', '--json'])).json().api_key as string;
    expect((await list(key)).status).toBe(200);
    expect((await cli(['agent', 'disable', 'bot'])).code).toBe(0);
    expect(await list(key)).toEqual({ status: 403, code: 'forbidden' });
    expect((await cli(['agent', 'enable', 'bot'])).code).toBe(0);
    expect((await list(key)).status).toBe(200);

    expect(await post(key, 'sports')).toBe('forbidden');
    expect((await cli(['agent', 'channels', 'add', 'bot', 'sports', '--json'])).json()).toMatchObject({
      changed: true,
    });
    expect(await post(key, 'sports')).toBe('202');
    expect((await cli(['agent', 'channels', 'remove', 'bot', 'sports'])).code).toBe(0);
    expect(await post(key, 'sports')).toBe('forbidden');

    const agents = (await cli(['agent', 'list', '--json'])).json();
    expect(agents).toEqual([expect.objectContaining({ agent: 'bot', disabled_at: null, channels: ['news'] })]);
    expect((await cli(['channel', 'list', '--json'])).json()).toEqual([
      expect.objectContaining({ channel: 'news', agents: 1 }),
      expect.objectContaining({ channel: 'sports', agents: 0 }),
    ]);
  });

  it('key rotate prints a new key once; the old one works for the grace period, then stops', async () => {
    const old = (await cli(['key', 'create', 'bot', '--json'])).json().api_key as string;
    const graced = await cli(['key', 'rotate', old.slice(0, 16), '--json']);
    expect(graced.code).toBe(0);
    const rotated = graced.json();
    expect(rotated.api_key).toMatch(/^fd_live_/);
    expect(Date.parse(rotated.old_key_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect((await list(old)).status).toBe(200);
    expect((await list(rotated.api_key)).status).toBe(200);

    const again = (await cli(['key', 'rotate', rotated.new_prefix, '--grace', '0s', '--json'])).json();
    expect(await list(rotated.api_key)).toEqual({ status: 401, code: 'unauthenticated' });
    expect((await list(again.api_key)).status).toBe(200);
  });

  it('reviewer create --channels, channels add/remove and role take effect on the very next request, each recorded', async () => {
    const created = await cli(
      ['reviewer', 'create', 'Ben@example.com', '--channels', 'news', '--json', '--password-stdin'],
      PASSWORD,
    );
    expect(created.json()).toMatchObject({ email: 'ben@example.com', role: 'reviewer', channels: ['news'] });
    const res = await fetch(`${url}/review/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ben@example.com', password: PASSWORD }),
    });
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const get = (path: string) => fetch(url + path, { headers: { cookie } });
    const channels = async () =>
      ((await (await get('/review/channels')).json()) as { channels: { slug: string }[] }).channels.map((c) => c.slug);
    expect([await channels(), (await get('/review/ops')).status]).toEqual([['news'], 403]);

    expect((await cli(['reviewer', 'channels', 'add', 'ben@example.com', 'sports', '--json'])).json()).toEqual({
      email: 'ben@example.com',
      channel: 'sports',
      member: true,
      changed: true,
    });
    expect((await cli(['reviewer', 'channels', 'remove', 'ben@example.com', 'news'])).out).toEqual([
      'ben@example.com is no longer a member of news',
    ]);
    expect(await channels()).toEqual(['sports']);
    expect((await cli(['reviewer', 'role', 'ben@example.com', 'admin', '--json'])).json()).toMatchObject({
      role: 'admin',
      changed: true,
    });
    expect([await channels(), (await get('/review/ops')).status]).toEqual([['news', 'sports'], 200]);

    // The only admin cannot step down until someone else is one.
    const refused = await cli(['reviewer', 'role', 'ben@example.com', 'reviewer']);
    expect([refused.code, refused.err]).toEqual([2, [expect.stringContaining('last enabled admin')]]);
    expect((await cli(['reviewer', 'role', 'rita@example.com', 'admin'])).code).toBe(0);
    expect((await cli(['reviewer', 'role', 'ben@example.com', 'reviewer'])).code).toBe(0);
    expect((await get('/review/ops')).status).toBe(403);

    const ben = (await cli(['reviewer', 'list', '--json'])).json() as unknown as { email: string }[];
    expect(ben.find((r) => r.email === 'ben@example.com')).toMatchObject({
      role: 'reviewer',
      channels: ['sports'],
      has_password: true,
    });
    const events = await query(
      "SELECT action, data FROM account_events e JOIN reviewers r ON r.id = e.subject_id WHERE r.email = 'ben@example.com' ORDER BY e.id",
    );
    expect(events.map((e) => e.action)).toEqual([
      'created',
      'channel_added',
      'channel_removed',
      'role_set',
      'role_set',
    ]);
  });

  it.each([
    [['reviewer', 'create', 'rita@example.com']],
    [['reviewer', 'create', 'new@example.com', '--role', 'owner']],
    [['reviewer', 'create', 'new@example.com', '--channels', 'news,no-such-channel']],
    [['reviewer', 'role', 'rita@example.com', 'owner']],
    [['reviewer', 'channels', 'add', 'rita@example.com', 'no-such-channel']],
    [['reviewer', 'channels', 'remove', 'nobody@example.com', 'news']],
    [['reviewer', 'disable', 'nobody@example.com']],
    [['agent', 'disable', 'ghost']],
    [['agent', 'channels', 'add', 'bot', 'no-such-channel']],
    [['key', 'rotate', 'fd_live_zzzzzzzz']],
    [['key', 'rotate', 'fd_live_zzzzzzzz', '--grace', 'soon']],
    [['reviewer', 'set-password', 'rita@example.com']],
  ])('refuses %j with one clear line and exit 2', async (args) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(1);
    expect(result.out).toEqual([]);
  });
});
