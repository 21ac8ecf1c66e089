// The failover drill (issue 44), synchronous_mode on (fleet-patroni.ts): a planned switchover,
// then a kill -9 of the primary's postmaster, on the `patroni-drill` instance (ports of its own,
// started here and stopped at the end: the specs reading the default cluster never see it move).
// Nothing acknowledged is lost, no key maps to two ids, no client sees a 500, and every process
// carries on with no restart. The seconds until writes are taken again after each fault are the
// run's `recovery` figures (docs/reliability.md).
import { PATRONI_INSTANCES } from '@framedesk/testing';
import { describe, expect, it } from 'vitest';
import { expectNothingLost } from './fleet-expect';
import { failovers, runPatroniDrill } from './fleet-patroni';

describe('failover drill (Patroni, synchronous_mode)', () => {
  it(
    'loses no acknowledged frame or decision through a switchover and a kill -9 of the primary; clients never see a 500',
    { timeout: 600_000 },
    async () => {
      const { run, losses } = await runPatroniDrill(PATRONI_INSTANCES.drill, 'fleet-patroni');
      expect(Object.keys(run.figures.faults)).toEqual(Object.keys(failovers(PATRONI_INSTANCES.drill)));
      expectNothingLost(run);
      expect.soft(losses.frames_lost, 'acknowledged frames whose row the new primary lacks').toBe(0);
      expect.soft(losses.keys_with_two_ids, 'a retry with the same key named another id').toEqual([]);
      expect.soft(losses.retries_same_key.new_id + losses.retries_same_key.other).toBe(0);
    },
  );
});
