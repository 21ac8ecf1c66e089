// Agents and their keys in the audit trail (issue 37 point 5: "every account, membership …
// change"): `agent create`, `key create` and `key revoke` are recorded in account_events, with who
// ran them, and so appear in `audit export`.
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { runCli } from './in-process';

let database: TestDatabase;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, env);
const exported = async (...args: string[]) =>
  (await cli(['audit', 'export', '--format', 'jsonl', ...args])).out.map(
    (l) => JSON.parse(l) as Record<string, string | null>,
  );

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
}, 90_000);
afterAll(async () => {
  await database?.drop();
});

describe('agents and keys in the audit trail', () => {
  it('records agent create (with its channels and first key), key create and key revoke, by whom', async () => {
    const created = await cli(['agent', 'create', 'cam', '--channel', 'news', '--channel', 'sport', '--json']);
    expect(created.code).toBe(0);
    const first = (created.json() as { api_key: string }).api_key.slice(0, 16);
    const issued = await cli(['key', 'create', 'cam', '--json']);
    expect(issued.code).toBe(0);
    const second = (issued.json() as { api_key: string }).api_key.slice(0, 16);
    expect((await cli(['key', 'revoke', first])).code).toBe(0);

    const rows = (await exported()).filter((r) => r['kind'] === 'account');
    expect(rows.map((r) => [r['subject'], r['action'], r['channel']])).toEqual([
      ['agent:cam', 'created', null],
      ['agent:cam', 'channel_added', 'news'],
      ['agent:cam', 'channel_added', 'sport'],
      [`api_key:${first}`, 'created', null],
      [`api_key:${second}`, 'created', null],
      [`api_key:${first}`, 'revoked', null],
    ]);
    expect(new Set(rows.map((r) => r['who']))).toEqual(new Set([`cli:${userInfo().username}`]));
    // A channel's trail names the agents that may post to it.
    expect((await exported('--channel', 'sport')).map((r) => [r['subject'], r['action']])).toEqual([
      ['agent:cam', 'channel_added'],
    ]);
  });

  it('records nothing for a refused change', async () => {
    const before = (await exported()).length;
    expect((await cli(['agent', 'create', 'cam', '--channel', 'news'])).code).not.toBe(0);
    expect((await cli(['key', 'revoke', 'fd_live_zzzz'])).code).not.toBe(0);
    expect((await cli(['key', 'create', 'nobody'])).code).not.toBe(0);
    expect(await exported()).toHaveLength(before);
  });
});
