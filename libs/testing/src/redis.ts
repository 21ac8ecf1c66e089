import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
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

export interface SlowRedis {
  /** A redis:// URL whose connections reach the test Redis only after the delay. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The test Redis behind a door that holds each new connection for `delayMs` before passing its
 * bytes on (a Redis far away, or busy accepting): what a client does before its connection is
 * ready can be tested without a race.
 */
export async function startSlowRedis(delayMs: number): Promise<SlowRedis> {
  const target = new URL(testRedisUrl());
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.pause();
    const timer = setTimeout(() => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    }, delayMs);
    client.on('close', () => {
      clearTimeout(timer);
      sockets.delete(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
