import { markRaisedBy } from '@framedesk/domain';
import { VideoToolUnavailableError } from '@framedesk/media';
import { UnrecoverableError } from '@framedesk/queues';
import { describe, expect, it } from 'vitest';
import { classifyJobError, serverFaultDelayMs } from './job-errors';

const errno = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${code} simulated`), { code, ...extra });

describe('classifyJobError', () => {
  it('a recorded media fault is final', () => {
    expect(classifyJobError(new UnrecoverableError('invalid_video: …'))).toEqual({ kind: 'media' });
  });

  it('names each server fault: missing tool, full disk, database, Redis, storage — through causes and AggregateErrors', () => {
    const reason = (error: unknown) => {
      const c = classifyJobError(error);
      return c.kind === 'server' ? c.reason : c.kind;
    };
    expect(reason(new VideoToolUnavailableError('ffprobe', '/usr/bin/ffprobe'))).toMatch(
      /^ffprobe not found at \/usr\/bin\/ffprobe; install ffmpeg or set FFPROBE_PATH/,
    );
    expect(reason(errno('ENOSPC'))).toBe('disk full [ENOSPC]');
    expect(
      reason(
        new Error('fetch failed', {
          cause: new AggregateError([errno('ECONNREFUSED', { address: '::1', port: 9000 })]),
        }),
      ),
    ).toBe('connection refused (::1:9000) [ECONNREFUSED]');
    expect(reason(Object.assign(new Error("Can't reach database server"), { code: 'P1001' }))).toBe(
      'PostgreSQL unreachable [P1001]',
    );
    expect(reason(new Error('Connection is closed.'))).toBe('Redis unreachable');
    // A reset is named by the client that raised it (libs/domain connection-errors), never by its text.
    expect(reason(markRaisedBy(errno('ECONNRESET'), 'Redis'))).toBe('Redis connection reset');
    expect(reason(markRaisedBy(errno('ECONNRESET'), 'PostgreSQL'))).toBe('PostgreSQL unreachable [ECONNRESET]');
    expect(reason(errno('ECONNRESET', { address: '10.0.0.1', port: 6379 }))).toBe(
      'connection reset (10.0.0.1:6379) [ECONNRESET]',
    );
    // The API's 503 and the worker's hold read one list per dependency: PostgreSQL restarting
    // (SQLSTATE 57P01 inside Prisma's driver-adapter error) is a server fault here too.
    const adminShutdown = { name: 'DriverAdapterError', cause: { originalCode: '57P01', kind: 'postgres' } };
    expect(reason(Object.assign(new Error('terminated'), { meta: { driverAdapterError: adminShutdown } }))).toBe(
      'PostgreSQL unreachable [57P01]',
    );
    expect(reason(Object.assign(new Error('x'), { name: 'InternalError', $metadata: { httpStatusCode: 503 } }))).toBe(
      'storage unavailable (InternalError)',
    );
  });

  it('anything else is unknown, with a short reason for the operations page (held like a server fault)', () => {
    expect(classifyJobError(new TypeError('x is undefined'))).toEqual({
      kind: 'unknown',
      reason: 'unclassified error (TypeError: x is undefined)',
    });
    expect(classifyJobError(errno('ENOENT'))).toEqual({
      kind: 'unknown',
      reason: 'unclassified error (Error: ENOENT simulated)',
    });
    const long = classifyJobError(new Error(`${'x'.repeat(400)}\nstack-like second line`));
    expect(long.kind === 'unknown' && long.reason).toBe(`unclassified error (Error: ${'x'.repeat(160)})`);
    expect(classifyJobError('a thrown string')).toEqual({
      kind: 'unknown',
      reason: 'unclassified error (Error: a thrown string)',
    });
  });
});

describe('serverFaultDelayMs', () => {
  it('doubles from the base and never waits more than the cap (5 minutes by default)', () => {
    expect([1, 2, 3, 4].map((t) => serverFaultDelayMs(t))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(serverFaultDelayMs(7)).toBe(300_000);
    expect(serverFaultDelayMs(10_000)).toBe(300_000);
  });
});
