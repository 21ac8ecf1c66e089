// The failover drill (issue 44): the fleet (two APIs behind a balancer, two workers, agents sending
// frames, reviewers deciding, tus uploads, the live stream) on a Patroni cluster through HAProxy,
// synchronous_mode on, while the primary changes: a planned switchover, then a kill -9 of the
// primary's postmaster. Nothing acknowledged is lost, no key maps to two ids, no client sees a
// 500, and every process carries on with no restart. The seconds until writes are taken again
// after each fault are the run's `recovery` figures (docs/reliability.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterDatabase,
  createClusterDatabase,
  engineDir,
  patroniAsyncDir,
  patroniKillPrimary,
  patroniSwitchover,
  startEngine,
  stopEngine,
  waitForHealthy,
  waitForNewPrimary,
} from '@framedesk/testing';
import { expectNothingLost } from './fleet-expect';
import { type Fault, runFleetFaults } from './fleet-run';

// PATRONI_REPLICATION=async runs the same drill on asynchronous replication, for the comparison
// in docs/reliability.md (a cluster of its own: the default one is stopped, and started again by
// the next test that wants it).
const asynchronous = process.env['PATRONI_REPLICATION'] === 'async';
const dir = asynchronous ? patroniAsyncDir() : engineDir('patroni');

const FAILOVERS: Record<string, Fault> = {
  'patroni-switchover': async () => {
    await waitForHealthy(dir); // synchronous mode: the candidate is the sync standby
    await patroniSwitchover();
  },
  'patroni-primary-kill-9': async () => {
    await waitForHealthy(dir); // with no sync standby, Patroni would restart the primary in place
    await waitForNewPrimary(await patroniKillPrimary(dir));
  },
};

describe(`failover drill (Patroni, ${asynchronous ? 'asynchronous replication' : 'synchronous_mode'})`, () => {
  let database: ClusterDatabase;

  beforeAll(async () => {
    if (asynchronous) {
      await stopEngine('patroni');
      await startEngine('patroni', { fresh: true, dir });
    } else await startEngine('patroni');
    database = await createClusterDatabase();
  }, 180_000);

  afterAll(async () => {
    await database?.drop().catch(() => undefined);
    if (asynchronous) await stopEngine('patroni', { dir, remove: true });
  });

  it(
    'loses no acknowledged frame or decision through a switchover and a kill -9 of the primary; clients never see a 500',
    { timeout: 600_000 },
    async () => {
      const run = await runFleetFaults({
        name: asynchronous ? 'fleet-patroni-async' : 'fleet-patroni',
        seconds: 20,
        faultEverySeconds: 6,
        faults: FAILOVERS,
        fleet: { databaseUrl: database.url },
      });
      expect(Object.keys(run.figures.faults)).toEqual(Object.keys(FAILOVERS));
      expectNothingLost(run);
    },
  );
});
