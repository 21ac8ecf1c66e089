import { describe, expect, it } from 'vitest';
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
    const reset = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:26381'), { code: 'ECONNREFUSED' });
    expect(redisUnreachableReason(reset)).toBe('Redis connection reset');
  });

  it('not what a request or a script got wrong', () => {
    expect(isRedisTransient(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(isRedisTransient(new Error('NOSCRIPT No matching script'))).toBe(false);
    expect(
      isRedisTransient(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    ).toBe(false);
  });
});
