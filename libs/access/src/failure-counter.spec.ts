import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { failureCounter } from './failure-counter';

describe('failure counter (real Redis)', () => {
  const redis = new Redis(testRedisUrl(), { lazyConnect: false, maxRetriesPerRequest: 1 });
  const space = createTestRedisPrefix();
  afterAll(async () => {
    await space.cleanup();
    redis.disconnect();
  });
  /** The real Redis, with a count of the scripts sent to it. */
  const counted = () => {
    const store = {
      calls: 0,
      eval: (script: string, numKeys: number, ...args: (string | number)[]) => {
        store.calls++;
        return redis.eval(script, numKeys, ...args);
      },
    };
    return store;
  };

  it('blocks a subject past the limit with the seconds left in the window', async () => {
    const counter = failureCounter(redis, { prefix: space.prefix, name: 'a', limit: 2, windowMs: 60_000 });
    expect(await counter.blocked('1.2.3.4')).toBeNull();
    await counter.count('1.2.3.4');
    expect(await counter.blocked('1.2.3.4')).toBeNull();
    await counter.count('1.2.3.4');
    const wait = await counter.blocked('1.2.3.4');
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await counter.blocked('5.6.7.8')).toBeNull();
  });

  it('asks the store nothing for a subject that never failed in this process', async () => {
    const store = counted();
    const counter = failureCounter(store, { prefix: space.prefix, name: 'b', limit: 2, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) expect(await counter.blocked('honest')).toBeNull();
    expect(store.calls).toBe(0);
    await counter.count('guesser');
    await counter.blocked('guesser');
    expect(store.calls).toBe(2);
  });

  it("sees another process's failures once it has counted one of its own", async () => {
    const options = { prefix: space.prefix, name: 'c', limit: 3, windowMs: 60_000 };
    const a = failureCounter(redis, options);
    const b = failureCounter(redis, options);
    await a.count('x');
    await a.count('x');
    expect(await b.blocked('x')).toBeNull(); // b has seen no failure: one more attempt is served
    await b.count('x');
    expect(await b.blocked('x')).toBeGreaterThan(0);
  });

  it('forgets a local failure after the window and asks the store again on the next one', async () => {
    let clock = 0;
    const store = counted();
    const counter = failureCounter(store, {
      prefix: space.prefix,
      name: 'd',
      limit: 5,
      windowMs: 1_000,
      now: () => clock,
    });
    await counter.count('y');
    clock = 999;
    await counter.blocked('y');
    expect(store.calls).toBe(2);
    clock = 1_000;
    await counter.blocked('y');
    expect(store.calls).toBe(2);
  });
});
