// The CLI's side of issue 37: each channel's reject reasons (`channel reasons set|show`) and the
// audit trail (`audit export`), parsed back with a real CSV parser.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { exportAudit, REJECT_REASONS } from '@framedesk/review';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { runCli } from './in-process';

const WORKBENCH_DOC = resolve(import.meta.dirname, '../../../docs/workbench.md');

let database: TestDatabase;
let env: Record<string, string>;
let db: Database;
const cli = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
  expect((await cli(['channel', 'create', 'sport'])).code).toBe(0);
  db = createDatabase({ url: database.url, poolSize: 2 });
}, 90_000);
afterAll(async () => {
  await db?.close();
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

const NOTE = 'Crop wider, please: the "logo" is cut off,\nand the caption is wrong';

describe('audit export', () => {
  const ids: string[] = [];
  let rita: string;

  beforeAll(async () => {
    expect((await cli(['channel', 'create', 'news'])).code).toBe(0);
    // Without --role or --channels the account is a reviewer of no channel: the output says what follows.
    const created = await cli(['reviewer', 'create', 'rita@example.com']);
    expect([created.code, created.out.join('\n')]).toEqual([
      0,
      'created reviewer rita@example.com (reviewer; channels: none)\n' +
        'rita@example.com will see no frames until it is given channels: ' +
        'reviewer channels add rita@example.com <channel>, or an admin on the People screen',
    ]);
    const admin = await cli(['reviewer', 'create', 'ada@example.com', '--role', 'admin']);
    expect(admin.out.join('\n')).not.toContain('will see no frames');
    expect((await cli(['reviewer', 'channels', 'add', 'rita@example.com', 'news'])).code).toBe(0);
    expect((await cli(['agent', 'create', 'auditbot', '--channel', 'news'])).code).toBe(0);
    expect((await cli(['agent', 'channels', 'add', 'auditbot', 'sport'])).code).toBe(0);
    expect((await cli(['channel', 'retention', 'set', 'news', '--rejected', '30d', '--yes'])).code).toBe(0);
    rita = (await db.repos.reviewers.findByEmail('rita@example.com'))!.id;
    const agent = (await db.repos.agents.findBySlug('auditbot'))!;
    const news = (await db.repos.channels.findBySlug('news'))!;
    for (const decision of ['rejected', 'promoted'] as const) {
      const id = newId('submission');
      ids.push(id);
      await db.repos.submissions.create(
        {
          id,
          status: 'received',
          mediaType: 'image',
          agentId: agent.id,
          channelId: news.id,
          date: '20261122',
          metadata: {},
          visibility: 'promotion_eligible',
        },
        { type: 'agent', id: agent.id },
      );
      for (const to of ['media_processing', 'needs_review'] as const)
        expect((await db.transition({ id, to, actor: { type: 'system' } })).ok).toBe(true);
      const rejected = decision === 'rejected';
      const result = await db.transition({
        id,
        to: decision,
        actor: { type: 'reviewer', id: rita },
        reason: rejected ? 'Low quality' : null,
        ...(rejected ? { data: { note: NOTE } } : {}),
      });
      expect(result.ok).toBe(true);
    }
  }, 60_000);

  it('--format csv parses back (a real CSV parser) to the trail in time order, the note with its comma, quote and newline', async () => {
    const res = await cli(['audit', 'export', '--format', 'csv']);
    expect(res.code).toBe(0);
    const rows = parse(res.out.join('\n'), { columns: true }) as Record<string, string>[];
    const transitions = rows.filter((r) => r['kind'] === 'transition');
    expect(transitions.map((r) => [r['subject'], r['who'], r['from'], r['to'], r['reason'], r['note']])).toEqual([
      [ids[0], 'agent:auditbot', '', 'received', '', ''],
      [ids[0], 'system', 'received', 'media_processing', '', ''],
      [ids[0], 'system', 'media_processing', 'needs_review', '', ''],
      [ids[0], 'rita@example.com', 'needs_review', 'rejected', 'Low quality', NOTE],
      [ids[1], 'agent:auditbot', '', 'received', '', ''],
      [ids[1], 'system', 'received', 'media_processing', '', ''],
      [ids[1], 'system', 'media_processing', 'needs_review', '', ''],
      [ids[1], 'rita@example.com', 'needs_review', 'promoted', '', ''],
    ]);
    const accounts = rows.filter((r) => r['kind'] === 'account').map((r) => [r['subject'], r['action'], r['channel']]);
    expect(accounts).toEqual(
      expect.arrayContaining([
        ['reviewer:rita@example.com', 'created', ''],
        ['reviewer:rita@example.com', 'channel_added', 'news'],
        ['agent:auditbot', 'channel_added', 'sport'],
        ['channel:news', 'retention_set', 'news'],
        ['channel:sport', 'reject_reasons_set', 'sport'],
      ]),
    );
    for (const r of rows) expect(r['who']).not.toBe('');
    const times = rows.map((r) => Date.parse(r['at']!));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The columns, in the order docs/workbench.md gives them.
    const documented = /columns `([^`]+)`/.exec(readFileSync(WORKBENCH_DOC, 'utf8'))![1]!.split(/,\s*/);
    expect(Object.keys(rows[0]!)).toEqual(documented);
  });

  it('--format jsonl gives the same rows; --channel and --since/--until narrow them; small batches change nothing', async () => {
    const csv = parse((await cli(['audit', 'export'])).out.join('\n'), { columns: true }) as Record<string, string>[];
    const jsonl = (await cli(['audit', 'export', '--format', 'jsonl'])).out.map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    expect(jsonl.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v ?? ''])))).toEqual(csv);

    const sport = (await cli(['audit', 'export', '--channel', 'sport', '--format', 'jsonl'])).out.map((l) =>
      JSON.parse(l),
    );
    expect(sport.map((r: { action: string }) => r.action)).toEqual([
      'reject_reasons_set',
      'reject_reasons_set',
      'channel_added',
    ]);
    const future = await cli(['audit', 'export', '--since', '2999-01-01', '--format', 'jsonl']);
    expect([future.code, future.out]).toEqual([0, []]);
    const past = await cli(['audit', 'export', '--until', '2000-01-01']);
    expect(past.out).toEqual(['at,kind,channel,subject,who,from,to,action,reason,note']);
    expect((await cli(['audit', 'export', '--format', 'xml'])).code).toBe(2);
    expect((await cli(['audit', 'export', '--since', 'yesterday'])).code).toBe(2);

    // Batches of 2 rows: the keyset continues exactly where each batch ended.
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await exportAudit(db, { window: {}, format: 'jsonl', batchSize: 2 }, out);
    const batched = Buffer.concat(chunks)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(batched).toEqual(jsonl);
  });

  it('lists review policy changes: who, and the old and new policy', async () => {
    const sport = (await db.repos.channels.findBySlug('sport'))!;
    const policy = { rules: [{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }] };
    await db.transaction((repos) => repos.policies.set(sport.id, policy, 'cli:auditor'));
    const rows = (await cli(['audit', 'export', '--channel', 'sport', '--format', 'jsonl'])).out.map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    const change = rows.find((r) => r['kind'] === 'policy');
    expect(change).toMatchObject({ channel: 'sport', who: 'cli:auditor', action: 'policy_set', from: null });
    expect(JSON.parse(String(change?.['to']))).toEqual(policy);
  });
});
