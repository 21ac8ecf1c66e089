import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export function testRedisUrl(): string {
  // eslint-disable-next-line no-restricted-properties -- test harness: the settings object does not exist yet.
  return process.env['FRAMEDESK_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
}

/**
 * A Redis key prefix of this test's own, hash-tagged like the product's (`{…}`), and a way to
 * delete every key under it.
 */
export function createTestRedisPrefix(): { prefix: string; cleanup(): Promise<void> } {
  const prefix = `{fdtest_${randomBytes(6).toString('hex')}}`;
  return {
    prefix,
    async cleanup() {
      const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
