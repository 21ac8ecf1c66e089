// /readyz's checks are shared: a storm of readiness probes costs each dependency one ping per 1.5 s.
import { describe, expect, it } from 'vitest';
import { READINESS_MAX_AGE_MS, readinessProbe } from './health.routes';

describe('readinessProbe', () => {
  it('runs the checks once for every caller within 1.5 s, those waiting on a round in flight included', async () => {
    let clock = 0;
    let pings = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const probe = readinessProbe(
      [
        {
          name: 'postgres',
          check: async () => {
            pings++;
            await gate;
          },
        },
      ],
      () => undefined,
      READINESS_MAX_AGE_MS,
      () => clock,
    );
    const storm = Array.from({ length: 100 }, () => probe());
    release();
    const answers = await Promise.all(storm);
    expect(answers.every((a) => a[0]![1].status === 'ok')).toBe(true);
    for (let i = 0; i < 14; i++) {
      clock += 100;
      await probe();
    }
    expect(pings).toBe(1);
    clock += 100; // 1.5 s after the first round
    await probe();
    expect(pings).toBe(2);
  });

  it('keeps a failed round as long, without the reason', async () => {
    let clock = 0;
    let pings = 0;
    const logged: unknown[] = [];
    const probe = readinessProbe(
      [{ name: 'redis', check: async () => Promise.reject(new Error(`ECONNREFUSED ${++pings}`)) }],
      (details) => logged.push(details),
      READINESS_MAX_AGE_MS,
      () => clock,
    );
    expect((await probe())[0]).toEqual(['redis', { status: 'unavailable' }]);
    clock += 1000;
    expect((await probe())[0]).toEqual(['redis', { status: 'unavailable' }]);
    expect([pings, logged.length]).toEqual([1, 1]);
  });
});
