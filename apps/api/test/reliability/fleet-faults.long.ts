// `npm run test:soak`: the fleet fault run for FLEET_SECONDS (default 600) with a fault every
// 15 s, each kind many times; its JSON figures go to docs/reliability.md.
import { describe, it } from 'vitest';
import { expectNothingLost } from './fleet-expect';
import { runFleetFaults } from './fleet-run';

const SECONDS = Number(process.env['FLEET_SECONDS'] ?? 600);

describe(`fleet faults, long run: ${SECONDS} s`, () => {
  it(
    'loses, duplicates and strands nothing; clients never see a 500',
    { timeout: (SECONDS + 600) * 1000 },
    async () => {
      expectNothingLost(await runFleetFaults({ name: 'fleet-faults-long', seconds: SECONDS, faultEverySeconds: 15 }));
    },
  );
});
