import { createDatabase, type Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePolicy } from './evaluate';
import { policyAdmin, policyCache } from './policy-store';
import { policyInput } from './policy.test-support';

const BLANK = { rules: [{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }] };

describe('policies per channel (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Database;
  let channelId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 2 });
    channelId = (await db.repos.channels.ensure('pol-channel')).channel.id;
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('sets, shows and clears, recording who changed what from what', async () => {
    const admin = policyAdmin(db);
    expect(await admin.show('pol-channel')).toBeNull();
    expect((await admin.set('pol-channel', BLANK, 'cli:ana')).version).toBe(1);
    const next = { rules: [...BLANK.rules, { name: 'rest', when: 'true', action: 'review', priority: 'low' }] };
    expect((await admin.set('pol-channel', next, 'cli:bo')).version).toBe(2);
    expect((await admin.show('pol-channel'))?.policy).toEqual(next);
    expect(await admin.clear('pol-channel', 'cli:ana')).toBe(true);
    expect(await admin.clear('pol-channel', 'cli:ana')).toBe(false);
    const changes = await db.repos.policies.changes(channelId);
    expect(changes.map((c) => [c.actor, c.oldPolicy, c.newPolicy])).toEqual([
      ['cli:ana', null, BLANK],
      ['cli:bo', BLANK, next],
      ['cli:ana', next, null],
    ]);
  });

  it('refuses a file with problems, listing each, and changes nothing', async () => {
    const admin = policyAdmin(db);
    await admin.set('pol-channel', BLANK, 'cli:ana');
    const bad = {
      rules: [
        { name: 'syntax', when: 'signals.blank &&', action: 'review' },
        { name: 'unknown', when: 'nope > 1', action: 'review' },
      ],
    };
    const error = await admin.set('pol-channel', bad, 'cli:ana').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('policy_invalid');
    const details = (error as DomainError).errors?.map((e) => e.detail) ?? [];
    expect(details[0]).toMatch(/^rule 1 "syntax": \/rules\/0\/when \(line 1, column 17\)/);
    expect(details[1]).toMatch(/^rule 2 "unknown".*Unknown variable: nope/);
    expect((await admin.show('pol-channel'))?.policy).toEqual(BLANK);
    await expect(admin.set('no-such-channel', BLANK, 'cli:ana')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a worker cache notices a change at its next check, and only then', async () => {
    let now = 0;
    const cache = policyCache(db, { checkEveryMs: 5_000, clock: () => now });
    const admin = policyAdmin(db);
    await admin.set('pol-channel', BLANK, 'cli:ana');
    expect((await cache.forChannel(channelId))?.rules.map((r) => r.rule.name)).toEqual(['blank']);
    await admin.set('pol-channel', { rules: [{ name: 'all', when: 'true', action: 'review' }] }, 'cli:ana');
    now = 4_000;
    expect((await cache.forChannel(channelId))?.rules.map((r) => r.rule.name)).toEqual(['blank']);
    now = 5_000;
    expect((await cache.forChannel(channelId))?.rules.map((r) => r.rule.name)).toEqual(['all']);
    await admin.clear('pol-channel', 'cli:ana');
    now = 10_000;
    expect(await cache.forChannel(channelId)).toBeNull();
  });

  it("two workers' caches, each on its own connection: a policy set through the store reaches both at their next check", async () => {
    const admin = policyAdmin(db);
    await admin.set('pol-channel', BLANK, 'cli:ana');
    // Two workers: their own Database handles, their own caches (checking every 100 ms), and a
    // count of each one's reads of the policy row (the recompile after a changed version).
    const workers = await Promise.all([0, 1].map(() => createDatabase({ url: database.url, poolSize: 1 })));
    const rowReads = [0, 0];
    const caches = workers.map((worker, i) => {
      const policies = {
        ...worker.repos.policies,
        find: (id: string) => {
          rowReads[i]!++;
          return worker.repos.policies.find(id);
        },
      };
      return policyCache({ ...worker, repos: { ...worker.repos, policies } }, { checkEveryMs: 100 });
    });
    const names = async (cache: (typeof caches)[number]) =>
      (await cache.forChannel(channelId))?.rules.map((r) => r.rule.name) ?? null;
    try {
      for (const cache of caches) expect(await names(cache)).toEqual(['blank']);
      expect(rowReads).toEqual([1, 1]);
      await admin.set('pol-channel', { rules: [{ name: 'all', when: 'true', action: 'review' }] }, 'cli:bo');
      // Each worker serves frames meanwhile; within a generous deadline both see the new policy.
      const deadline = Date.now() + 15_000;
      for (const cache of caches) {
        while ((await names(cache))?.[0] !== 'all') {
          if (Date.now() > deadline) throw new Error('a worker never saw the changed policy');
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      // The mechanism: each noticed the new version and re-read the row once, however often it was asked.
      expect(rowReads).toEqual([2, 2]);
      await admin.clear('pol-channel', 'cli:ana');
      for (const cache of caches) {
        while ((await names(cache)) !== null) {
          if (Date.now() > deadline + 15_000) throw new Error('a worker never saw the policy cleared');
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      // A cleared policy keeps its row (a tombstone with the next version): each re-read it once.
      expect(rowReads).toEqual([3, 3]);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('a set after a clear gets a version no cache has seen: a worker that cached version 1 applies the new rules', async () => {
    const admin = policyAdmin(db);
    const slug = 'pol-reset';
    const id = (await db.repos.channels.ensure(slug)).channel.id;
    const promoteAll = { rules: [{ name: 'auto', when: 'true', action: 'promote' }] };
    const reviewAll = { rules: [{ name: 'people', when: 'true', action: 'review' }] };
    expect((await admin.set(slug, promoteAll, 'cli:ana')).version).toBe(1);
    // Worker A cached version 1; worker B has not looked yet.
    let now = 0;
    const workerA = policyCache(db, { checkEveryMs: 5_000, clock: () => now });
    const workerB = policyCache(db, { checkEveryMs: 5_000, clock: () => now });
    expect((await workerA.forChannel(id))?.rules.map((r) => r.rule.name)).toEqual(['auto']);
    // Clear, then a new policy, both before worker A's next check (the Policies screen's "Clear, then Save").
    expect(await admin.clear(slug, 'cli:bo')).toBe(true);
    const set = await admin.set(slug, reviewAll, 'cli:bo');
    now = 5_000;
    for (const worker of [workerA, workerB]) {
      const policy = await worker.forChannel(id);
      expect(policy?.rules.map((r) => r.rule.name)).toEqual(['people']);
      expect(policy?.version).toBe(set.version);
    }
    expect(set.version).toBeGreaterThan(1);
    // The version that routed a frame is recorded in its outcome.
    const policy = (await workerA.forChannel(id))!;
    const outcome = evaluatePolicy(policy, policyInput({ signals: null }));
    expect(outcome).toMatchObject({ rule: 'people', action: 'review', version: set.version });
    expect((await admin.show(slug))?.version).toBe(set.version);
  });

  it('a stored policy that no longer compiles holds frames for people and is reported, never read as no policy', async () => {
    const admin = policyAdmin(db);
    const slug = 'pol-broken';
    const id = (await db.repos.channels.ensure(slug)).channel.id;
    await admin.set(slug, { rules: [{ name: 'auto', when: 'true', action: 'promote' }] }, 'cli:ana');
    // As after a library upgrade that no longer accepts the stored expression.
    await database.query(
      `UPDATE channel_policies SET policy = '{"rules":[{"name":"auto","when":"signals.blank &&","action":"promote"}]}'
       WHERE channel_id = $1`,
      [id],
    );
    const reported: unknown[] = [];
    const cache = policyCache(db, {
      onBroken: (channel, version, problems) => reported.push({ channel, version, problems }),
    });
    const policy = await cache.forChannel(id);
    expect(policy?.broken?.[0]).toMatchObject({ rule: 1, name: 'auto' });
    expect(reported).toEqual([{ channel: id, version: 1, problems: policy?.broken }]);
    const outcome = evaluatePolicy(policy!, policyInput({ signals: null }));
    expect(outcome).toMatchObject({ rule: null, action: 'review', held: 'policy does not compile', version: 1 });
    expect(await admin.problems(slug)).toEqual([expect.stringMatching(/^rule 1 "auto": \/rules\/0\/when/)]);
  });
});
