// The Sentinel drill (issue 46): the fleet (two APIs behind a balancer, two workers, agents,
// uploads, reviewers with the live queue open) on three Redis under three Sentinels. A planned
// `SENTINEL FAILOVER`, then a `kill -9` of the new primary. Every acknowledged frame reaches
// needs_review or a decision (the reconciler re-runs what the switch lost), none runs more than
// twice (every run counted by the database; one run of a frame at a time), no transition is
// recorded twice, no client sees a 500, and the live queue receives events again after each
// switch (and is told to refresh what it may have missed). Figures: docs/reliability.md.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { sentinelTopology } from '@framedesk/queues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportFigures } from './harness';
import { type Fault, runFleetFaults } from './fleet-run';
import { type SentinelRedis, type Switch, startSentinelRedis } from './fleet-sentinel';

const root = resolve(import.meta.dirname, '../../../..');

describe('Sentinel drill: a failover and a kill -9 of the primary under the fleet', () => {
  let redis: SentinelRedis;
  beforeAll(async () => {
    redis = await startSentinelRedis();
  }, 120_000);
  afterAll(async () => {
    await redis?.close();
  });

  it(
    'loses no acknowledged frame, answers no 500, and the live queue comes back after each switch',
    { timeout: 600_000 },
    async () => {
      const switches: Record<string, Switch> = {};
      const faults: Record<string, Fault> = {
        'sentinel-failover': async () => void (switches['sentinel-failover'] = await redis.failover()),
        'primary-kill-9': async () => void (switches['primary-kill-9'] = await redis.killPrimary()),
      };
      const name = 'fleet-sentinel';
      const run = await runFleetFaults({ name, seconds: 16, faultEverySeconds: 8, faults, fleet: { redis } });
      const { figures: f, details: d } = run;
      const log = readFileSync(resolve(root, `test-results/${name}.log`), 'utf8');
      const republished = log.split('re-enqueued a submission without a live job').length - 1;
      reportFigures(`${name}-switches`, {
        switches: Object.fromEntries(
          Object.entries(switches).map(([k, s]) => [
            k,
            { from: s.from, to: s.to, seconds_without_primary: s.secondsWithoutPrimary },
          ]),
        ),
        reconciler_republished: republished,
        processing: f.processing,
        recovery: f.recovery,
        live_resyncs: f.live_stream.resyncs,
      });

      expect(Object.keys(switches)).toEqual(['sentinel-failover', 'primary-kill-9']);
      // What `doctor` prints: the primary the Sentinels name after both switches, and its replicas
      // (the killed node back as one once it has synced).
      const settings = {
        REDIS_URL: '',
        REDIS_SENTINELS: redis.env['REDIS_SENTINELS']!,
        REDIS_SENTINEL_NAME: 'framedesk',
      };
      const topology = await sentinelTopology(settings);
      expect(topology?.primary).toBe(`127.0.0.1:${switches['primary-kill-9']!.to}`);
      expect(topology?.replicas.map((r) => r.address).sort()).toEqual(
        [switches['sentinel-failover']!.from, switches['primary-kill-9']!.from].map((p) => `127.0.0.1:${p}`).sort(),
      );
      for (const [fault, r] of Object.entries(f.recovery)) expect(r.max_ms, `recovery after ${fault}`).not.toBeNull();
      expect.soft(d.serverErrors, 'answers 500').toEqual([]);
      expect.soft(d.unavailableWithoutRetryAfter, '503 without Retry-After').toBe(0);
      expect.soft(d.lost, 'acknowledged but not needs_review or decided').toEqual([]);
      expect.soft(d.duplicatedTransitions, 'a transition recorded twice').toEqual([]);
      // Every run of every acknowledged frame is counted (countProcessingRuns) and printed above.
      // A frame's re-runs (the intake's stall check, the reconciler's re-publish, a job whose lock
      // lapsed in the switch) wait for its live run and skip it once it has left the pipeline
      // (docs/reliability.md, "One run of a frame at a time"): up to 4 runs were seen before.
      expect.soft(f.processing.max_runs_per_frame, 'runs counted').toBeGreaterThan(0);
      expect.soft(f.processing.ran_more_than_twice, 'frames run more than twice').toEqual([]);
      expect.soft(d.decisionsLost, 'acknowledged decisions not applied').toEqual([]);
      expect.soft(d.decisionsTwice, 'one frame decided twice').toEqual([]);
      expect.soft(f.acknowledged.images + f.acknowledged.mcp_frames).toBeGreaterThan(0);
      // The live queue hears changes again after each switch, and was told to refresh.
      for (const [fault, s] of Object.entries(switches))
        expect
          .soft(d.liveEventTimes.filter((at) => at > s.endedAt).length, `live events after ${fault}`)
          .toBeGreaterThan(0);
      expect.soft(f.live_stream.resyncs, 'event: resync received').toBeGreaterThan(0);
    },
  );
});
