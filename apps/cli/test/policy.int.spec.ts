// `policy set | show | clear | simulate` against a real PostgreSQL (docs/policies.md).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReviewer } from '@framedesk/access';
import { createDatabase, type Database } from '@framedesk/db';
import { compilePolicy, simulatePolicy } from '@framedesk/policies';
import { createTestDatabase, lockWaiters, type TestDatabase } from '@framedesk/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPolicies } from '../src/doctor/policy-check';
import { seedFrame } from './frames';
import { runCli } from './in-process';

const BLANK = { rules: [{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }] };

describe('policy commands', () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  let env: Record<string, string>;
  const file = async (name: string, content: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const cli = (...args: string[]) => runCli(args, env);

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 2 });
    env = { DATABASE_URL: database.url };
    dir = await mkdtemp(join(tmpdir(), 'fd-policy-cli-'));
    await db.repos.channels.ensure('desk');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('sets, shows and clears a policy, each change recorded with who and what', async () => {
    const set = await cli('policy', 'set', 'desk', await file('blank.json', BLANK));
    expect([set.code, set.out[0]]).toEqual([0, 'policy of desk set: 1 rule(s), version 1']);
    const shown = await cli('policy', 'show', 'desk', '--json');
    expect(shown.json()).toMatchObject({ policy: BLANK, version: 1, updated_by: expect.stringMatching(/^cli/) });
    const cleared = await cli('policy', 'clear', 'desk');
    expect([cleared.code, cleared.out[0]]).toEqual([0, 'policy cleared']);
    expect((await cli('policy', 'show', 'desk', '--json')).json()).toEqual({ policy: null });
    const channel = (await db.repos.channels.findBySlug('desk'))!;
    expect((await db.repos.policies.changes(channel.id)).map((c) => [c.oldPolicy, c.newPolicy])).toEqual([
      [null, BLANK],
      [BLANK, null],
    ]);
  });

  it('refuses a CEL syntax error and an unknown variable, naming each rule, exit 2, the policy in force unchanged', async () => {
    await cli('policy', 'set', 'desk', await file('blank.json', BLANK));
    const bad = await file('bad.json', {
      rules: [
        { name: 'ok', when: 'signals.blank', action: 'reject', reason: 'Low quality' },
        { name: 'typo', when: 'signals.blank &&', action: 'reject', reason: 'Low quality' },
        { name: 'ghost', when: 'weather.sunny', action: 'promote' },
      ],
    });
    const refused = await cli('policy', 'set', 'desk', bad);
    expect(refused.code).toBe(2);
    expect(refused.err.join('\n')).toMatch(/rule 2 "typo": \/rules\/1\/when \(line 1, column 17\): Unexpected token/);
    expect(refused.err.join('\n')).toMatch(
      /rule 3 "ghost": \/rules\/2\/when \(line 1, column 1\): Unknown variable: weather/,
    );
    expect((await cli('policy', 'show', 'desk', '--json')).json().policy).toEqual(BLANK);
    const notJson = await cli('policy', 'set', 'desk', await file('broken.json', '{"rules": ['));
    expect(notJson.code).toBe(2);
    expect((await cli('policy', 'set', 'nowhere', await file('b2.json', BLANK))).code).toBe(2);
  });

  it('simulate replays the rules over frames people decided, per rule, with the frames no rule matched', async () => {
    const channel = (await db.repos.channels.ensure('history')).channel;
    const reviewer = await createReviewer(db, {
      email: 'sim@example.com',
      password: 'a long password here',
      role: 'admin',
    });
    const decided = async (signals: Record<string, unknown>, decision: 'promoted' | 'rejected') => {
      const id = await seedFrame(db, {
        agent: 'painter',
        channel: 'history',
        status: 'media_processing',
        metadata: { title: 't' },
      });
      // The signals ride on → needs_review, as the worker records them.
      await db.transition({ id, to: 'needs_review', actor: { type: 'system' }, patch: { signals } });
      const done = await db.transition({
        id,
        to: decision,
        actor: { type: 'reviewer', id: reviewer.id },
        patch: { reviewDecision: decision, reviewerId: reviewer.id, reviewedAt: new Date() },
      });
      expect(done.ok).toBe(true);
      return id;
    };
    const pixels = (blank: boolean, extra: Record<string, unknown> = {}) => ({
      blank,
      luminance: 10,
      luminance_spread: blank ? 1 : 50,
      sharpness: 5,
      ...extra,
    });
    for (let i = 0; i < 4; i++) await decided(pixels(true), 'rejected');
    await decided(pixels(true), 'promoted');
    for (let i = 0; i < 2; i++) await decided(pixels(false, { nearest_rejected: 2 }), 'rejected');
    for (let i = 0; i < 3; i++) await decided(pixels(false), 'promoted');
    const policy = await file('sim.json', {
      rules: [
        { name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' },
        { name: 'copy', when: 'signals.nearest_rejected <= 4', action: 'reject', reason: 'Duplicate' },
      ],
    });
    const text = await cli('policy', 'simulate', 'history', policy, '--since', '30d');
    expect(text.code).toBe(0);
    expect(text.out.join('\n')).toContain("reject 'blank': 5 matched, people rejected 4 of them");
    expect(text.out.join('\n')).toContain("reject 'copy': 2 matched, people rejected 2 of them");
    expect(text.out.join('\n')).toContain('no rule matched: 3 (people promoted 3, rejected 0)');
    const json = (await runCli(['policy', 'simulate', 'history', policy, '--json'], env)).json();
    expect(json).toMatchObject({ frames: 10, unmatched: { count: 3 } });
    expect(json.rules[0]).toEqual({
      rule: 'blank',
      action: 'reject',
      matched: 5,
      people_promoted: 1,
      people_rejected: 4,
      agreed: 4,
    });
    // In batches of any size, the same counts.
    const compiled = compilePolicy(JSON.parse(await readFile(policy, 'utf8')), ['Low quality', 'Duplicate']);
    if (!compiled.ok) throw new Error('does not compile');
    const small = await simulatePolicy(db, {
      channelId: channel.id,
      channelSlug: 'history',
      policy: compiled.policy,
      since: new Date(Date.now() - 86_400_000),
      batchSize: 3,
    });
    expect(small).toEqual({ ...json, since: small.since });
    // The agent's record (agent.*), kept per day by the counter's trigger: people's decisions
    // only (4 promoted, 6 rejected above, one more now); a frame rejected without a person is not counted.
    const last = await decided(pixels(false), 'promoted');
    const agentId = (await db.repos.submissions.findById(last))!.agentId;
    const month = new Date(Date.now() - 30 * 86_400_000);
    expect(await db.repos.policies.agentDecisions(agentId, month)).toEqual({ promoted: 5, rejected: 6 });
    await seedFrame(db, { agent: 'painter', channel: 'history', status: 'rejected' });
    expect(await db.repos.policies.agentDecisions(agentId, month)).toEqual({ promoted: 5, rejected: 6 });
    // It read only: the channel still has no policy.
    expect((await cli('policy', 'show', 'history', '--json')).json()).toEqual({ policy: null });
    expect((await cli('policy', 'simulate', 'history', policy, '--since', 'forever')).code).toBe(2);
    // One since rule with the API's Simulate (libs/policies simulationSince): at most 365 days.
    const tooFar = await cli('policy', 'simulate', 'history', policy, '--since', '400d');
    expect(tooFar.code).toBe(2);
    expect(tooFar.err.join('\n')).toContain('at most 365d');
    expect((await cli('policy', 'simulate', 'history', policy, '--since', '365d')).code).toBe(0);
  });

  it('a simulation stops when asked to (the API: its client went away) and at its deadline', async () => {
    const compiled = compilePolicy(BLANK, ['Low quality']);
    if (!compiled.ok) throw new Error('does not compile');
    const channel = (await db.repos.channels.ensure('history')).channel;
    const base = {
      channelId: channel.id,
      channelSlug: 'history',
      policy: compiled.policy,
      since: new Date(Date.now() - 86_400_000),
      batchSize: 3,
    };
    expect((await simulatePolicy(db, base)).frames).toBeGreaterThan(3);
    await expect(simulatePolicy(db, { ...base, signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    // Its first batch waits on a lock past the deadline: the next batch is not read.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE submissions IN ACCESS EXCLUSIVE MODE');
      const run = simulatePolicy(db, { ...base, deadlineMs: 1 }).catch((error: unknown) => error);
      await expect.poll(() => lockWaiters(holder), { timeout: 60_000 }).toBe(1);
      await holder.query('COMMIT');
      expect(await run).toMatchObject({ code: 'deadline_exceeded', status: 503 });
    } finally {
      await holder.end();
    }
  });

  it('refuses a regular expression RE2 does not accept or that does not compile; show and doctor name a stored policy that no longer compiles', async () => {
    await db.repos.channels.ensure('regex-desk');
    const refused = await cli(
      'policy',
      'set',
      'regex-desk',
      await file('regex.json', {
        rules: [
          { name: 'backref', when: 'frame.metadata.title.matches("(a)\\\\1")', action: 'review' },
          { name: 'open', when: 'matches(frame.metadata.caption, "(")', action: 'review' },
        ],
      }),
    );
    expect(refused.code).toBe(2);
    expect(refused.err.join('\n')).toMatch(
      /rule 1 "backref": \/rules\/0\/when \(line 1, column 30\): .*not accepted by RE2/,
    );
    expect(refused.err.join('\n')).toMatch(/rule 2 "open": \/rules\/1\/when .*missing closing \)/);
    expect((await cli('policy', 'show', 'regex-desk', '--json')).json()).toEqual({ policy: null });
    expect(await checkPolicies({ DATABASE_URL: database.url })).toMatchObject({ status: 'ok' });

    // As after a library upgrade: the stored expression no longer compiles.
    await cli('policy', 'set', 'regex-desk', await file('fine.json', BLANK));
    const channel = (await db.repos.channels.findBySlug('regex-desk'))!;
    await database.query(
      `UPDATE channel_policies SET policy = jsonb_set(policy, '{rules,0,when}', '"signals.blank &&"') WHERE channel_id = $1`,
      [channel.id],
    );
    const shown = await cli('policy', 'show', 'regex-desk');
    expect(shown.out.join('\n')).toMatch(/DOES NOT COMPILE/);
    expect((await cli('policy', 'show', 'regex-desk', '--json')).json()).toMatchObject({
      compiles: false,
      problems: [expect.stringMatching(/^rule 1 "blank": \/rules\/0\/when/)],
    });
    expect(await checkPolicies({ DATABASE_URL: database.url })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/1 stored policies no longer compile.*regex-desk \(version 1\): rule 1 "blank"/),
    });
    await cli('policy', 'clear', 'regex-desk');
  });
});
