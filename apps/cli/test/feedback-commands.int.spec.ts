// The CLI's side of issue 37: each channel's reject reasons (`channel reasons set|show`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECT_REASONS } from '@framedesk/review';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { runCli } from './in-process';

let database: TestDatabase;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
  expect((await cli(['channel', 'create', 'sport'])).code).toBe(0);
}, 90_000);
afterAll(async () => {
  await database?.drop();
});

describe('channel reasons', () => {
  it('shows the default list, sets the channel’s own, refuses bad lists, and goes back to the default', async () => {
    const shown = await cli(['channel', 'reasons', 'show', 'sport', '--json']);
    expect(shown.json()).toEqual({ channel: 'sport', reasons: [...REJECT_REASONS], default: true });

    const set = await cli(['channel', 'reasons', 'set', 'sport', 'Blurry', 'Wrong team']);
    expect([set.code, set.out]).toEqual([0, ['sport: its own reasons\n  Blurry\n  Wrong team']]);
    expect((await cli(['channel', 'reasons', 'show', 'sport', '--json'])).json()).toEqual({
      channel: 'sport',
      reasons: ['Blurry', 'Wrong team'],
      default: false,
    });

    expect((await cli(['channel', 'reasons', 'set', 'sport'])).code).toBe(2);
    const repeated = await cli(['channel', 'reasons', 'set', 'sport', 'Blurry', 'Blurry']);
    expect([repeated.code, repeated.err.join('\n')]).toEqual([2, expect.stringContaining('each reason is given once')]);
    expect((await cli(['channel', 'reasons', 'show', 'nowhere'])).code).toBe(2);

    expect((await cli(['channel', 'reasons', 'set', 'sport', '--default', '--json'])).json()).toMatchObject({
      default: true,
    });
    const events = await database.query(
      "SELECT action, actor, data FROM account_events WHERE action = 'reject_reasons_set' ORDER BY id",
    );
    expect(events).toEqual([
      {
        action: 'reject_reasons_set',
        actor: expect.stringMatching(/^cli/),
        data: { before: null, after: ['Blurry', 'Wrong team'] },
      },
      {
        action: 'reject_reasons_set',
        actor: expect.stringMatching(/^cli/),
        data: { before: ['Blurry', 'Wrong team'], after: null },
      },
    ]);
  });
});
