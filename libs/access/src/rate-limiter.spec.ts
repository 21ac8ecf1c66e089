import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { createRateLimiter } from './rate-limiter';

describe('rate limiter (real Redis)', () => {
  const redis = new Redis(testRedisUrl(), { lazyConnect: false, maxRetriesPerRequest: 1 });
  const space = createTestRedisPrefix();
  afterAll(async () => {
    await space.cleanup();
    redis.disconnect();
  });

  it('allows `limit` hits per window and subject, then refuses with the reset time', async () => {
    const limiter = createRateLimiter(redis, { prefix: `${space.prefix}:a`, limit: 2, windowMs: 60_000 });
    const a = [await limiter.hit('k1'), await limiter.hit('k1'), await limiter.hit('k1')];
    expect(a.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(a[2]!.resetSeconds).toBeGreaterThan(0);
    expect(a[2]!.resetSeconds).toBeLessThanOrEqual(60);
    expect((await limiter.hit('k2')).allowed).toBe(true);
  });

  it('counts a cost of several requests at once (an MCP batch)', async () => {
    const limiter = createRateLimiter(redis, { prefix: `${space.prefix}:c`, limit: 10 });
    expect((await limiter.hit('k', 8)).remaining).toBe(2);
    const over = await limiter.hit('k', 3);
    expect([over.allowed, over.remaining]).toEqual([false, 0]);
    expect((await limiter.hit('other', 10)).allowed).toBe(true);
  });

  it('repairs a window key left without an expiry', async () => {
    const prefix = `${space.prefix}:b`;
    const limiter = createRateLimiter(redis, { prefix, limit: 5 });
    await limiter.hit('k');
    const [key] = await redis.keys(`${prefix}:ratelimit:k:*`);
    await redis.persist(key!);
    expect(await redis.pttl(key!)).toBe(-1);
    await limiter.hit('k');
    expect(await redis.pttl(key!)).toBeGreaterThan(0);
  });

  it('lets store failures reach the caller (which fails open)', async () => {
    const limiter = createRateLimiter({ eval: () => Promise.reject(new Error('down')) }, { prefix: 'p', limit: 1 });
    await expect(limiter.hit('k')).rejects.toThrow('down');
  });
});
