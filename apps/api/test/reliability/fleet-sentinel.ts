// The fleet's Redis as three Redis servers under three Sentinels (the project's Sentinel engine,
// in a folder of its own): what the drill switches, and how long the fleet went without a primary.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  killSentinelRedis,
  logTail,
  sentinelProcessNames,
  type PrivateRedis,
  restartSentinelRedis,
  SENTINEL_MASTER,
  SENTINEL_PORTS,
  sentinelPrimaryPort,
  startEngine,
  stopEngine,
} from '@framedesk/testing';
import { Redis } from 'ioredis';
import { sleep } from './harness';

export interface SentinelRedis extends PrivateRedis {
  readonly env: Record<string, string>;
  readonly primaryPort: () => number;
  /** `SENTINEL FAILOVER`: a planned switch (the old primary demoted, ~1 s of writes may be lost). */
  failover(): Promise<Switch>;
  /** `kill -9` of the primary; the node is started again (a replica) once another was promoted. */
  killPrimary(): Promise<Switch>;
}

export interface Switch {
  readonly from: number;
  readonly to: number;
  /** From the fault until the primary the Sentinels name took a write. */
  readonly secondsWithoutPrimary: number;
  readonly endedAt: number;
}

export async function startSentinelRedis(): Promise<SentinelRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'fd-sentinel-'));
  const { env } = await startEngine('sentinel', { fresh: true, dir }).catch(async (error: unknown) => {
    await stopEngine('sentinel', { dir, remove: true }); // what did start
    throw error;
  });
  /**
   * One write to the node on `port`, on a connection of its own: a long-lived client following
   * the Sentinels was seen stuck on "Connection is closed." for the whole minute after a kill
   * (CI, stop 49), so each look connects afresh. A replica answers READONLY: not promoted yet.
   */
  const writeTo = async (port: number) => {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.set(`{drill}:probe`, String(Date.now()));
    } finally {
      client.disconnect();
    }
  };

  /** Waits for the Sentinels to name another primary, then for a write to it to succeed. */
  const switched = async (from: number, startedAt: number): Promise<Switch> => {
    let lastError = 'the Sentinels still name it';
    for (const deadline = Date.now() + 60_000; ; await sleep(50)) {
      if (Date.now() > deadline)
        throw new Error(
          `no new primary after ${from} within 60 s (${lastError})\n${logTail(dir, sentinelProcessNames())}`,
        );
      const to = (() => {
        try {
          return sentinelPrimaryPort();
        } catch {
          return from;
        }
      })();
      if (to === from) continue;
      const wrote = await writeTo(to)
        .then(() => true)
        .catch((error: Error) => {
          lastError = `${to}: ${error.message}`;
          return false;
        });
      if (wrote) return { from, to, secondsWithoutPrimary: (Date.now() - startedAt) / 1000, endedAt: Date.now() };
    }
  };

  const sentinelCall = async (...args: string[]) => {
    const sentinel = new Redis({ host: '127.0.0.1', port: SENTINEL_PORTS[0], maxRetriesPerRequest: 1 });
    try {
      return await sentinel.call('SENTINEL', ...args);
    } finally {
      sentinel.disconnect();
    }
  };

  return {
    env,
    get port() {
      return sentinelPrimaryPort();
    },
    get url() {
      return `redis://127.0.0.1:${sentinelPrimaryPort()}`;
    },
    primaryPort: () => sentinelPrimaryPort(),
    isRunning: () => true,
    async stop() {
      // The drill's faults are failover() and killPrimary(); the fleet's own Redis restart is not run here.
    },
    async start() {},
    async close() {
      await stopEngine('sentinel', { dir });
      await rm(dir, { recursive: true, force: true });
    },
    async failover() {
      const from = sentinelPrimaryPort();
      const startedAt = Date.now();
      await sentinelCall('FAILOVER', SENTINEL_MASTER);
      return switched(from, startedAt);
    },
    async killPrimary() {
      const from = sentinelPrimaryPort();
      const startedAt = Date.now();
      killSentinelRedis(dir, from);
      const result = await switched(from, startedAt);
      restartSentinelRedis(dir, from);
      return result;
    },
  };
}
