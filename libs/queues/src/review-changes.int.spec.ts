// The live review stream on a real Redis: several processes append changes at once, so their
// announcements may arrive out of the stream's order, or not at all (a process killed between
// its XADD and its PUBLISH). An open listener must still get every change, in stream order.
import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewChangeEvent, reviewChangeSubscriber, reviewChangesKeys } from './review-changes';

describe('review changes: the stream is the truth, announcements only wake listeners', () => {
  const prefix = createTestRedisPrefix();
  const keys = reviewChangesKeys(prefix.prefix);
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(async () => {
    redis.disconnect();
    await prefix.cleanup();
  });

  const append = (id: string) =>
    redis.xadd(keys.stream, '*', 'change', JSON.stringify({ kind: 'status', id, status: 'needs_review' }));
  const announce = (streamId: string, id: string) =>
    redis.publish(
      keys.channel,
      JSON.stringify({ id: streamId, change: { kind: 'status', id, status: 'needs_review' } }),
    );
  const until = async (events: ReviewChangeEvent[], n: number) => {
    for (let deadline = Date.now() + 5_000; events.length < n && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
  };

  it('delivers changes announced out of order, and one never announced, each once and in stream order', async () => {
    const subscriber = reviewChangeSubscriber(redis, prefix.prefix);
    const events: ReviewChangeEvent[] = [];
    const stop = await subscriber.listen(null, (e) => events.push(e));
    // Two processes appended a and b; b's announcement arrives first, a's never (its process died).
    const a = (await append('sub_a'))!;
    const b = (await append('sub_b'))!;
    await announce(b, 'sub_b');
    await until(events, 2);
    const c = (await append('sub_c'))!;
    await announce(c, 'sub_c');
    await announce(a, 'sub_a'); // late, already delivered
    await until(events, 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(events.map((e) => [e.id, e.change.id])).toEqual([
      [a, 'sub_a'],
      [b, 'sub_b'],
      [c, 'sub_c'],
    ]);
    stop();
    await subscriber.close();
  });
});
