// The fleet under rotating faults, short: two APIs behind a balancer, two workers, S3, one private
// PostgreSQL and Redis; image and MCP agents, tus uploads, pollers and two reviewers with the live
// stream open, while each API and worker is SIGKILLed, Redis and PostgreSQL restart, storage is
// unreachable for 10 s and the balancer drops every connection. The 10-minute run is
// fleet-faults.long.ts (`npm run test:soak`).
import { describe, expect, it } from 'vitest';
import { expectNothingLost } from './fleet-expect';
import { runFleetFaults } from './fleet-run';

describe('fleet faults (short)', () => {
  it(
    'loses, duplicates and strands nothing the clients saw acknowledged; clients never see a 500',
    { timeout: 600_000 },
    async () => {
      const run = await runFleetFaults({
        name: 'fleet-faults-short',
        seconds: Number(process.env['FLEET_SECONDS'] ?? 30),
        faultEverySeconds: 3,
      });
      expect(Object.keys(run.figures.faults)).toHaveLength(8); // every kind of fault, at least once
      expectNothingLost(run);
    },
  );
});
