import { connect, createServer, type Server } from 'node:net';
import { connectionError, raisedBy, systemFaultReason } from '@framedesk/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from './connection';
import { isRedisTransient, redisUnreachableReason } from './unreachable';

// What Redis and ioredis say while a primary switches (docs/operations.md "Redis with Sentinel").
describe('redisUnreachableReason: a failover is transient', () => {
  it.each([
    ['READONLY', "READONLY You can't write against a read only replica."],
    ['NOREPLICAS', 'NOREPLICAS Not enough good replicas to write.'],
    ['UNBLOCKED', 'UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)'],
    ['LOADING', 'LOADING Redis is loading the dataset in memory'],
    ['MASTERDOWN', 'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'],
  ])('%s', (word, message) => {
    expect(redisUnreachableReason(new Error(message))).toBe(`Redis switching primaries (${word})`);
  });

  it('the Sentinels unreachable, a closed connection, a reset', () => {
    expect(redisUnreachableReason(new Error('All sentinels are unreachable. Retrying from scratch after 100ms.'))).toBe(
      'Redis unreachable',
    );
    expect(redisUnreachableReason(new Error('Connection is closed.'))).toBe('Redis unreachable');
  });

  it('not what a request or a script got wrong', () => {
    expect(isRedisTransient(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(isRedisTransient(new Error('NOSCRIPT No matching script'))).toBe(false);
    expect(
      isRedisTransient(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    ).toBe(false);
    // A reset is Redis's by what raised it, not by a port in its text.
    expect(
      isRedisTransient(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:26381'), { code: 'ECONNREFUSED' })),
    ).toBe(false);
  });
});

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

/** The first error `redis` emits. */
const firstError = (redis: Redis) => new Promise<Error>((resolve) => redis.once('error', resolve));

describe('a connection reset raised by a client of createRedis is Redis’s (real sockets)', () => {
  // A "Redis" that resets every connection it accepts, as a killed primary's kernel answers.
  const resetting = createServer((socket) => socket.resetAndDestroy());
  let resetPort = 0;
  let closedPort = 0;
  const clients: Redis[] = [];
  const client = (port: number, role: 'worker' | 'producer') => {
    const redis = createRedis(`redis://127.0.0.1:${port}`, role);
    clients.push(redis);
    return redis;
  };

  beforeAll(async () => {
    resetPort = await listen(resetting);
    const gone = createServer();
    closedPort = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
  });
  afterAll(async () => {
    clients.forEach((c) => c.disconnect());
    await new Promise((resolve) => resetting.close(resolve));
  });

  it('the reset a client emits (what BullMQ hands a worker), and its duplicate’s', async () => {
    const worker = client(resetPort, 'worker');
    const reset = await firstError(worker);
    expect((reset as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(connectionError(reset)).toEqual({ code: 'ECONNRESET', dependency: 'Redis' });
    expect(redisUnreachableReason(reset)).toBe('Redis connection reset');
    expect(systemFaultReason(reset)).toBeNull(); // named once, as Redis's

    const duplicate = worker.duplicate();
    clients.push(duplicate);
    expect(redisUnreachableReason(await firstError(duplicate))).toBe('Redis connection reset');
  });

  it('a refused connection, and the command a producer could not send', async () => {
    const producer = client(closedPort, 'producer');
    const refused = await firstError(producer);
    expect(connectionError(refused)).toEqual({ code: 'ECONNREFUSED', dependency: 'Redis' });
    const failed = await producer.get('k').then(
      () => null,
      (e: Error) => e,
    );
    expect(failed).not.toBeNull();
    expect(raisedBy(failed!)).toBe('Redis');
    expect(redisUnreachableReason(failed!)).toBe('Redis unreachable');
  });

  it('the same reset from a bare socket is nobody’s: not Redis’s', async () => {
    const bare = await new Promise<Error>((resolve) => connect(resetPort, '127.0.0.1').on('error', resolve));
    expect(connectionError(bare)).toEqual({ code: 'ECONNRESET', dependency: null });
    expect(redisUnreachableReason(bare)).toBeNull();
  });
});
