import { describe, expect, it } from 'vitest';
import { medianSecondsBetween, reviewerStats } from './review-stats';

const at = (s: number) => new Date(Date.UTC(2026, 2, 15, 9, 0, s));

describe('reviewer stats', () => {
  it('takes the median gap between decisions, leaving pauses out', () => {
    expect(medianSecondsBetween([])).toBeNull();
    expect(medianSecondsBetween([at(0)])).toBeNull();
    expect(medianSecondsBetween([at(0), at(10), at(30), at(36)])).toBe(10);
    expect(medianSecondsBetween([at(0), at(10), at(20 + 3600)])).toBe(10);
    expect(medianSecondsBetween([at(0), at(10), at(30)])).toBe(15);
  });

  it('counts from midnight UTC and passes the scope and channel to the backlog', async () => {
    const calls: unknown[] = [];
    const stats = await reviewerStats(
      {
        decisionTimes: async (_id, since) => (calls.push(since.toISOString()), [at(0), at(20)]),
        backlog: async (scope, channel) => (calls.push({ scope, channel }), { waiting: 3, oldest: at(-60) }),
      },
      { reviewerId: 'r1', scope: { memberOf: 'r1' }, channel: 'news', now: at(500) },
    );
    expect(calls).toEqual(['2026-03-15T00:00:00.000Z', { scope: { memberOf: 'r1' }, channel: 'news' }]);
    expect(stats).toEqual({
      decisions_today: 2,
      median_seconds_per_decision: 20,
      backlog: { channel: 'news', waiting: 3, oldest_created_at: '2026-03-15T08:59:00.000Z' },
    });
  });
});
