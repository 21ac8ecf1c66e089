// The blame rule on real rows (docs/reliability.md, "How crashes are blamed"): the runs a worker
// died in are judged as the frames run again, in any order, each seeing the same crash.
import { type Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSubmissionsDatabase } from './database.test-support';
import { judgeRun } from './processing-crashes';

describe('judgeRun (real PostgreSQL)', () => {
  const test = useSubmissionsDatabase('crashes');
  let db: Database;
  beforeAll(() => {
    db = test.db;
  });

  const seed = async () => {
    const id = newId('submission');
    await db.repos.submissions.create(
      {
        id,
        status: 'received',
        mediaType: 'image',
        agentId: test.agentId,
        channelId: test.channelId,
        date: '20261122',
        metadata: {},
        visibility: 'draft',
      },
      { type: 'agent', id: test.agentId },
    );
    return id;
  };
  /** A run seen within the judge's `staleMs` is live. */
  const LIVE = { liveWithinMs: 10_000 };
  /** Runs `worker` started and then died in (not renewed for a minute). */
  const diedIn = async (worker: string, ids: readonly string[]) => {
    for (const id of ids)
      await db.repos.processingRuns.start({ id: newId('submission'), submissionId: id, worker }, LIVE);
    await test.database.query(`UPDATE processing_runs SET seen_at = now() - interval '1 minute' WHERE worker = $1`, [
      worker,
    ]);
  };
  const judge = (id: string, limit = 2) => judgeRun(db, id, { worker: 'me', staleMs: 10_000, limit });
  const crashCount = async (id: string) =>
    (await test.database.query<{ crash_count: number }>('SELECT crash_count FROM submissions WHERE id = $1', [id]))[0]
      ?.crash_count;

  it('strikes only the frame a worker died in alone; the frames of a shared crash run again alone, unstruck', async () => {
    const [poison, a, b] = [await seed(), await seed(), await seed()];
    await diedIn('w1', [poison, a, b]);
    // Judged one after the other: the last sees the crash as the first did, though the others' rows are gone.
    for (const id of [a, poison, b])
      expect(await judge(id)).toMatchObject({
        run: true,
        alone: true,
        crashes: 0,
        blame: { strikes: 0, suspect: true },
      });
    expect([await crashCount(poison), await crashCount(a), await crashCount(b)]).toEqual([0, 0, 0]);
    // Run alone, the poison kills its worker again: its own crash.
    await diedIn('w2', [poison]);
    expect(await judge(poison)).toMatchObject({ run: true, alone: true, crashes: 1, blame: { strikes: 1 } });
    await diedIn('w3', [poison]);
    expect(await judge(poison)).toMatchObject({ run: false, crashes: 2 });
    expect(await db.repos.submissions.findById(poison)).toMatchObject({
      status: 'failed',
      failureCode: 'processing_crashed',
    });
    expect(await test.database.query('SELECT * FROM processing_runs')).toEqual([]);
  });

  it('does not blame a run whose worker lives (renewed), nor a run of this worker', async () => {
    const [id, other] = [await seed(), await seed()];
    await db.repos.processingRuns.start({ id: newId('submission'), submissionId: id, worker: 'alive' }, LIVE);
    await db.repos.processingRuns.start({ id: newId('submission'), submissionId: other, worker: 'me' }, LIVE);
    await test.database.query(`UPDATE processing_runs SET seen_at = now() - interval '1 minute' WHERE worker = 'me'`);
    expect(await judge(id)).toMatchObject({ run: true, alone: false, blame: { strikes: 0, suspect: false } });
    expect(await judge(other)).toMatchObject({ run: true, alone: false, blame: { strikes: 0, suspect: false } });
    expect(await crashCount(id)).toBe(0);
  });

  it("starts a run only as the frame's one run: not beside a live run of it, not once it left the pipeline", async () => {
    const id = await seed();
    const run = (worker: string, ended: string[] = []) =>
      db.repos.processingRuns.start({ id: newId('submission'), submissionId: id, worker }, { ...LIVE, ended });
    expect(await run('w1')).toEqual({ started: true });
    // Another worker (a stalled entry taken back, the reconciler's re-run) and the same worker alike wait for it.
    expect(await run('w2')).toEqual({ started: false, runningOn: 'w1' });
    expect(await run('w1')).toEqual({ started: false, runningOn: 'w1' });
    // Its worker died: the run is stale, the frame is free again.
    await test.database.query(`UPDATE processing_runs SET seen_at = now() - interval '1 minute' WHERE worker = 'w1'`);
    expect(await run('w2')).toEqual({ started: true });
    // A run that ended in its worker and is deleted with the next start does not hold the frame.
    const [ended] = await test.database.query<{ id: string }>(`SELECT id FROM processing_runs WHERE worker = 'w2'`);
    expect(await run('w2', [ended!.id])).toEqual({ started: true });
    await test.database.query(`DELETE FROM processing_runs`);
    await test.database.query(`UPDATE submissions SET status = 'needs_review' WHERE id = $1`, [id]);
    expect(await run('w3')).toEqual({ started: false, status: 'needs_review' });
    expect(await test.database.query('SELECT * FROM processing_runs')).toEqual([]);
  });
});
