// The live review stream across a Redis switch: the Redis the subscriber reads is demoted to a
// replica of an empty Redis and promoted again (what a failover does: the new primary lacks the
// last writes, and changes published meanwhile were dropped). The listeners are told to resync
// (the workbench reads everything again) and receive the changes that follow.
import { startPrivateRedis, type PrivateRedis } from '@framedesk/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from './connection';
import { type ReviewChangeEvent, reviewChangeSubscriber, reviewChangesKeys } from './review-changes';

const waitFor = async (what: string, check: () => boolean, timeoutMs = 20_000) => {
  for (const deadline = Date.now() + timeoutMs; !check();) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('review changes: a Redis switch under an open listener', () => {
  let primary: PrivateRedis;
  let other: PrivateRedis;
  let admin: Redis;
  beforeAll(async () => {
    [primary, other] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
    admin = new Redis(primary.url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    admin?.disconnect();
    await Promise.all([primary?.close(), other?.close()]);
  });

  it('tells listeners to resync after the switch and keeps delivering changes', async () => {
    const redis = createRedis(primary.url, 'worker');
    const keys = reviewChangesKeys('{t}');
    const subscriber = reviewChangeSubscriber(redis, '{t}');
    const events: ReviewChangeEvent[] = [];
    let resyncs = 0;
    const stop = await subscriber.listen(
      null,
      (e) => events.push(e),
      () => resyncs++,
    );
    const append = (id: string) =>
      admin.xadd(keys.stream, '*', 'change', JSON.stringify({ kind: 'status', id, status: 'needs_review' }));
    await append('sub_before');
    await waitFor('the change before the switch', () => events.length === 1);

    await admin.call('REPLICAOF', '127.0.0.1', String(other.port));
    // Demoted once it has synced with the empty primary (its own data replaced).
    let synced = false;
    await waitFor('demoted and synced', () => {
      void admin.info('replication').then((info) => (synced = info.includes('master_link_status:up')));
      return synced;
    });
    await admin.call('REPLICAOF', 'NO', 'ONE');
    // What the new primary never had: the stream is gone with the old one's data.
    expect(await admin.exists(keys.stream)).toBe(0);

    await waitFor('a resync after the switch', () => resyncs > 0);
    await append('sub_after');
    await waitFor('the change after the switch', () => events.some((e) => e.change.id === 'sub_after'));

    // A client back with a Last-Event-ID the stream no longer reaches is told to resync too.
    let told = false;
    const late = await subscriber.listen(
      '99999999999999-0',
      () => undefined,
      () => (told = true),
    );
    expect(told).toBe(true);
    late();
    stop();
    await subscriber.close();
    redis.disconnect();
  }, 60_000);
});
