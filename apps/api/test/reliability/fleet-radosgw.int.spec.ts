// The fleet on real storage while its S3 server dies: two APIs, two workers, image and MCP agents,
// tus uploads, pollers and reviewers, while the fleet's own radosgw (Ceph RGW, a gateway of this
// file's own over the shared cluster, so other files' storage is untouched) is SIGKILLed and
// started again. Nothing acknowledged is lost, workers hold their jobs and resume, uploads complete.
import { describe, expect, it } from 'vitest';
import { expectNothingLost } from './fleet-expect';
import { type Fault, runFleetFaults } from './fleet-run';
import type { Fleet } from './fleet';
import { reportFigures, sleep } from './harness';

describe('fleet: radosgw killed and restarted', () => {
  it('loses nothing acknowledged; the resumable uploads in progress complete', { timeout: 600_000 }, async () => {
    const withoutStorage: number[] = [];
    const uploadsInProgress: number[] = [];
    const openUploads = async (fleet: Fleet) =>
      (await fleet.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM media_uploads WHERE completed_at IS NULL'))
        .rows[0]!.n;
    const restart: Fault = async (fleet) => {
      // Killed while a resumable upload is open (they run back to back; waited for, not assumed).
      for (const deadline = Date.now() + 20_000; (await openUploads(fleet)) === 0 && Date.now() < deadline;)
        await sleep(50);
      uploadsInProgress.push(await openUploads(fleet));
      withoutStorage.push(await fleet.restartStorage(2_000));
    };
    const run = await runFleetFaults({
      name: 'fleet-radosgw-restart',
      seconds: 30,
      warmupSeconds: 15,
      faultEverySeconds: 10,
      // Uploads of several seconds each (the uploader sends ~40 kB/s): one is in progress at each kill.
      clip: { seconds: 2, size: '320x240' },
      faults: { 'radosgw-sigkill-restart': restart },
      fleet: { storage: 'own-gateway' },
    });
    reportFigures('fleet-radosgw-restart-storage', {
      restarts: withoutStorage.length,
      uploads_open_at_each_kill: uploadsInProgress,
      seconds_without_storage: withoutStorage.map((s) => Math.round(s * 10) / 10),
    });
    expectNothingLost(run);
    expect(run.figures.faults['radosgw-sigkill-restart']).toBeGreaterThanOrEqual(1);
    expect(run.figures.uploads.completed).toBe(run.figures.uploads.sessions);
    expect(
      uploadsInProgress.every((n) => n > 0),
      `uploads open at the kills: ${uploadsInProgress}`,
    ).toBe(true);
  });
});
