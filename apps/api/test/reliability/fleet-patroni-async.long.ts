// The failover drill on asynchronous replication (fleet-patroni.ts, instance `patroni-async`,
// synchronous_mode off), for docs/reliability.md's comparison; in `npm run test:soak` (it takes
// as long as the synchronous drill, and what it loses differs from run to run).
//
// A promoted standby may miss the last commits the old primary acknowledged: how many is recorded
// (`fleet-patroni-async-losses` in test-results/reliability-figures.jsonl), not asserted. What
// must hold even so: no client sees a 500; no Idempotency-Key names two ids that both exist; the
// fleet takes writes again after each fault with no process restarted; every acknowledged frame
// whose row survived reaches needs_review or a decision (the reconciler re-runs one whose
// processing was rolled back); and an agent that retries a lost frame with the same key is
// answered 202 with a new id, which reaches needs_review.
import { PATRONI_INSTANCES } from '@framedesk/testing';
import { describe, expect, it } from 'vitest';
import { runPatroniDrill } from './fleet-patroni';

describe('failover drill (Patroni, asynchronous replication)', () => {
  it(
    'may lose acknowledged writes, but never answers 500, never maps a key to two ids, and recovers with no restart',
    { timeout: 600_000 },
    async () => {
      const { run, losses } = await runPatroniDrill(PATRONI_INSTANCES.async, 'fleet-patroni-async');
      const { figures: f, details: d } = run;
      for (const [fault, r] of Object.entries(f.recovery))
        expect(r.max_ms, `recovery after ${fault}`).toBeLessThan(Number.POSITIVE_INFINITY);
      expect.soft(d.serverErrors, 'answers 500').toEqual([]);
      expect.soft(d.unavailableWithoutRetryAfter, '503 without Retry-After').toBe(0);
      expect.soft(losses.keys_with_two_ids, 'a retry with the same key named another id').toEqual([]);
      expect.soft(f.duplicated.submissions_created_without_ack, 'submissions no client saw acknowledged').toBe(0);
      // Rows missing are the losses; every other acknowledged frame is final or reviewable.
      expect.soft(d.lost.filter((line) => !line.endsWith(' undefined'))).toEqual([]);
      expect
        .soft(losses.lost_frames_made_whole_by_retry, 'lost frames a same-key retry made whole')
        .toBe(losses.frames_lost);
      expect.soft(d.duplicatedTransitions, 'a transition recorded twice').toEqual([]);
      expect.soft(d.inFlightKeys, 'idempotency claims still held').toEqual([]);
    },
  );
});
