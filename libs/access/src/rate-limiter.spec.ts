import { describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimitStore } from './rate-limiter';

function memoryStore(): RateLimitStore & { ttl: Map<string, number> } {
  const counts = new Map<string, number>();
  const ttl = new Map<string, number>();
  return {
    ttl,
    incr: async (key) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return counts.get(key)!;
    },
    pexpire: async (key, ms) => {
      ttl.set(key, ms);
      return 1;
    },
    pttl: async (key) => ttl.get(key) ?? -1,
  };
}

describe('rate limiter', () => {
  it('allows `limit` hits per window and subject, then refuses with the reset time', async () => {
    const store = memoryStore();
    const limiter = createRateLimiter(store, { prefix: 'p', limit: 2, windowMs: 60_000 });
    const a = [await limiter.hit('k1'), await limiter.hit('k1'), await limiter.hit('k1')];
    expect(a.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(a[2]!.resetSeconds).toBe(60);
    expect((await limiter.hit('k2')).allowed).toBe(true);
  });

  it('repairs a window key left without an expiry', async () => {
    const store = memoryStore();
    const limiter = createRateLimiter(store, { prefix: 'p', limit: 5 });
    await limiter.hit('k');
    store.ttl.clear();
    await limiter.hit('k');
    expect([...store.ttl.values()]).toEqual([60_000]);
  });

  it('lets store failures reach the caller (which fails open)', async () => {
    const limiter = createRateLimiter(
      { incr: () => Promise.reject(new Error('down')), pexpire: async () => 0, pttl: async () => 0 },
      { prefix: 'p', limit: 1 },
    );
    await expect(limiter.hit('k')).rejects.toThrow('down');
  });
});
