// The live review stream on a real Redis: several processes append changes at once. An open
// listener must get every change exactly once, in the stream's order, whichever process wrote it.
import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewChangeEvent, reviewChangeSubscriber, reviewChangesKeys } from './review-changes';

describe('review changes: the stream is the truth', () => {
  const prefix = createTestRedisPrefix();
  const keys = reviewChangesKeys(prefix.prefix);
  let writers: Redis[];
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
    writers = [new Redis(testRedisUrl()), new Redis(testRedisUrl())];
  });
  afterAll(async () => {
    for (const r of [redis, ...writers]) r.disconnect();
    await prefix.cleanup();
  });

  const append = (writer: Redis, id: string) =>
    writer.xadd(keys.stream, '*', 'change', JSON.stringify({ kind: 'status', id, status: 'needs_review' }));
  const until = async (events: ReviewChangeEvent[], n: number) => {
    for (let deadline = Date.now() + 10_000; events.length < n && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
  };

  it('delivers changes appended by two processes at once, each once and in stream order', async () => {
    const subscriber = reviewChangeSubscriber(redis, prefix.prefix);
    const events: ReviewChangeEvent[] = [];
    const stop = await subscriber.listen(null, (e) => events.push(e));
    const appended = await Promise.all(
      Array.from({ length: 200 }, (_, i) => append(writers[i % 2]!, `sub_${i}`).then((id) => [id!, `sub_${i}`])),
    );
    await until(events, appended.length);
    await new Promise((r) => setTimeout(r, 200));
    const inStreamOrder = [...appended].sort(([a], [b]) => {
      const [am, as] = a!.split('-').map(Number);
      const [bm, bs] = b!.split('-').map(Number);
      return am! - bm! || as! - bs!;
    });
    expect(events.map((e) => [e.id, e.change.id])).toEqual(inStreamOrder);
    stop();
    await subscriber.close();
  });
});
