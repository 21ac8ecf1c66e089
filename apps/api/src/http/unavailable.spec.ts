import { describe, expect, it } from 'vitest';
import { asUnavailable } from './unavailable';

describe('asUnavailable', () => {
  it.each([
    ['a Prisma connection error', Object.assign(new Error('cannot reach'), { code: 'P1001' })],
    ['a Prisma initialization error', Object.assign(new Error('init'), { errorCode: 'P1001' })],
    [
      'a refused socket deep in the causes',
      new Error('outer', {
        cause: new Error('inner', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }),
      }),
    ],
    ['a dropped pg connection (no code)', new Error('Connection terminated unexpectedly')],
    [
      'a server shutting down (57P01)',
      { meta: { driverAdapterError: { cause: { originalCode: '57P01', kind: 'postgres' } } } },
    ],
    [
      'a full disk under the storage driver',
      new Error('put failed', { cause: Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }) }),
    ],
    ['an adapter kind', { meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } } }],
    [
      'Redis restarting under the upload lock (ioredis)',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
    ['Redis gone (ioredis)', new Error('Connection is closed.')],
    ['Prisma without a code', new Error("Raw query failed. Code: `N/A`. Message: `Can't reach database server at x`")],
    ['S3 timing out (AWS SDK)', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    [
      'S3 answering 503 (AWS SDK)',
      Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
    ],
    [
      'S3 answering any 5xx',
      Object.assign(new Error('x'), { name: 'UnknownError', $metadata: { httpStatusCode: 502 } }),
    ],
  ])('maps %s to 503 with Retry-After', (_name, error) => {
    const mapped = asUnavailable(error);
    expect(mapped?.code).toBe('service_unavailable');
    expect(mapped?.headers['Retry-After']).toBe('5');
  });

  it.each([
    ['a plain bug', new TypeError('undefined is not a function')],
    ['a unique violation', Object.assign(new Error('dup'), { code: 'P2002' })],
    ['a syntax error SQLSTATE', { meta: { driverAdapterError: { cause: { originalCode: '42601' } } } }],
    ['nothing', null],
  ])('leaves %s alone', (_name, error) => {
    expect(asUnavailable(error)).toBeNull();
  });
});
