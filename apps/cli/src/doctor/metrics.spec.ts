import { describe, expect, it } from 'vitest';
import { checkMetrics } from './metrics';

describe('doctor: metrics', () => {
  it('warns while /metrics is open, and says what production withholds', () => {
    expect(checkMetrics({ NODE_ENV: 'development', METRICS_TOKEN: undefined })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining("every channel's name and backlog"),
      fix: expect.stringContaining('METRICS_TOKEN'),
    });
    expect(checkMetrics({ NODE_ENV: 'production', METRICS_TOKEN: undefined })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('cluster gauges (queues, statuses, channel backlogs) are withheld'),
    });
    expect(checkMetrics({ NODE_ENV: 'production', METRICS_TOKEN: 'a-token' })).toMatchObject({ status: 'ok' });
  });
});
