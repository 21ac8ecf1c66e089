import { createDatabase, type Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyAdmin, policyCache } from './policy-store';

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
});
