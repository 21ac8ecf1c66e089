// The failover drill (issue 44), shared by its two runs: the fleet (two APIs behind a balancer,
// two workers, agents sending frames, reviewers deciding, tus uploads, the live stream) on a
// Patroni instance of its own, through HAProxy, while the primary changes: a planned switchover,
// then a kill -9 of the primary's postmaster. `fleet-patroni.int.spec.ts` runs it with
// synchronous_mode (nothing acknowledged may be lost); `fleet-patroni-async.long.ts` on
// asynchronous replication, where a promoted standby can miss the last acknowledged commits: it
// records what was lost, what an agent then sees, and what its retry and the reconciler bring back.
//
// Each run starts its instance (`patroni-drill`, `patroni-async`: ports of their own, so the specs
// reading the default `patroni` cluster never see its primary change) and stops it when done.
import {
  type ClusterDatabase,
  createClusterDatabase,
  type PatroniInstance,
  patroniKillPrimary,
  patroniSwitchover,
  startEngine,
  stopEngine,
  waitForHealthy,
  waitForNewPrimary,
} from '@framedesk/testing';
import type { Fleet } from './fleet';
import type { Acked } from './fleet-load';
import { type Fault, runFleetFaults } from './fleet-run';
import { reportFigures, sleep } from './harness';

const REVIEWABLE = /^(needs_review|promoted|rejected)$/;

/** The faults; each notes in `marks` the instant it struck (the switchover asked for, the SIGKILL sent). */
export function failovers(instance: PatroniInstance, marks: Record<string, number[]> = {}): Record<string, Fault> {
  const mark = (name: string) => (marks[name] ??= []).push(Date.now());
  return {
    'patroni-switchover': async () => {
      await waitForHealthy(instance); // synchronous mode: the candidate is the sync standby
      mark('patroni-switchover');
      await patroniSwitchover(instance);
    },
    'patroni-primary-kill-9': async () => {
      await waitForHealthy(instance); // with no standby to promote, Patroni restarts the primary in place
      mark('patroni-primary-kill-9');
      await waitForNewPrimary(await patroniKillPrimary(instance), instance);
    },
  };
}

/**
 * The seconds without writes after each fault, as the database saw them: from the instant the
 * fault struck to the first submission created after it (agents send every ~150 ms).
 */
async function writeGaps(fleet: Fleet, marks: Record<string, number[]>): Promise<Record<string, number[]>> {
  const gaps: Record<string, number[]> = {};
  for (const [name, instants] of Object.entries(marks))
    for (const at of instants) {
      const rows = await fleet.sql.query<{ first: Date | null }>(
        'SELECT min(created_at) AS first FROM submissions WHERE created_at > $1',
        [new Date(at)],
      );
      const first = rows.rows[0]?.first;
      (gaps[name] ??= []).push(first ? Math.round((first.getTime() - at) / 100) / 10 : Number.NaN);
    }
  return gaps;
}

/** What the promoted standby missed, and what came back (the figures of docs/reliability.md). */
export interface Losses {
  readonly acknowledged_frames: number;
  /** Frames answered 202 (or the MCP tool's id) whose row the new primary never had. */
  readonly frames_lost: number;
  /** What an agent's GET of a lost frame's id answers, by status. */
  readonly lost_frame_get: Record<string, number>;
  /** Lost frames sent again with the same Idempotency-Key: answered 202 with a new id, which reached needs_review. */
  readonly lost_frames_made_whole_by_retry: number;
  /** Every acknowledged frame sent again with its key: by status; `same id` counts the replays. */
  readonly retries_same_key: { readonly same_id: number; readonly new_id: number; readonly other: number };
  /** Keys whose retry named another id though the first one's row is there: one key, two ids. */
  readonly keys_with_two_ids: string[];
  /** Acknowledged frames the reconciler re-enqueued (their job was lost with the rows it wrote). */
  readonly reconciler_requeued: number;
  /** Per fault, the seconds from the instant it struck to the first write taken after it. */
  readonly seconds_without_writes: Record<string, number[]>;
}

/**
 * A retried POST's outcome, asked until it is not a transient one. A lost create's claim (its own,
 * earlier transaction) may have survived `in_flight`: 409 until its lock (60 s) expires, then a new create.
 */
async function resendUntilAnswered(resend: NonNullable<Acked['resend']>) {
  for (const giveUp = Date.now() + 75_000; ;) {
    const answer = await resend();
    if (Date.now() > giveUp || !(answer.status === 0 || answer.status >= 500 || answer.status === 409)) return answer;
    await sleep(1_000);
  }
}

async function waitReviewable(fleet: Fleet, ids: string[]): Promise<Set<string>> {
  const ok = new Set<string>();
  for (const deadline = Date.now() + 60_000; ids.length > 0;) {
    const rows = await fleet.sql.query<{ id: string; status: string }>(
      'SELECT id, status::text AS status FROM submissions WHERE id = ANY($1)',
      [ids],
    );
    for (const r of rows.rows) if (REVIEWABLE.test(r.status)) ok.add(r.id);
    if (ok.size === ids.length || Date.now() > deadline) break;
    await sleep(500);
  }
  return ok;
}

/**
 * After the load: asks, as an agent would, about every acknowledged frame — its GET when its row
 * is gone, and the same POST with the same Idempotency-Key. Retried frames that got a new id are
 * acknowledged (pushed to `acked`) and must become reviewable.
 */
async function countLosses(
  fleet: Fleet,
  load: { acked: Acked[]; statuses: ReadonlyMap<string, string> },
  marks: Record<string, number[]>,
): Promise<Losses> {
  console.log(`[drill] load over at ${new Date().toISOString()}: asking about ${load.acked.length} acknowledged items`);
  const frames = load.acked.filter((a) => a.resend);
  const lost = frames.filter((a) => !load.statuses.has(a.id));
  const lostGet: Record<string, number> = {};
  for (const a of lost) {
    const response = await fetch(`${fleet.url}/v1/frame-submissions/${a.id}`, {
      headers: { authorization: `Bearer ${fleet.agentKey}` },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => ({ status: 0 }));
    lostGet[response.status] = (lostGet[response.status] ?? 0) + 1;
  }
  const retries = { same_id: 0, new_id: 0, other: 0 };
  const keysWithTwoIds: string[] = [];
  const replacements: string[] = [];
  for (const a of frames) {
    const answer = await resendUntilAnswered(a.resend!);
    if (!answer.id || ![200, 202].includes(answer.status)) retries.other++;
    else if (answer.id === a.id) retries.same_id++;
    else {
      retries.new_id++;
      if (load.statuses.has(a.id)) keysWithTwoIds.push(`${a.key}: ${a.id} then ${answer.id}`);
      else replacements.push(answer.id);
      load.acked.push({ id: answer.id, kind: a.kind, key: a.key });
    }
  }
  const whole = await waitReviewable(fleet, replacements);
  const ackedIds = new Set(load.acked.map((a) => a.id));
  const requeued = new Set(
    fleet
      .output()
      .split('\n')
      .filter((line) => line.includes('re-enqueued a submission without a live job'))
      .map((line) => /"submissionId":"([^"]+)"/.exec(line)?.[1])
      .filter((id): id is string => id !== undefined && ackedIds.has(id)),
  );
  return {
    acknowledged_frames: frames.length,
    frames_lost: lost.length,
    lost_frame_get: lostGet,
    lost_frames_made_whole_by_retry: whole.size,
    retries_same_key: retries,
    keys_with_two_ids: keysWithTwoIds,
    reconciler_requeued: requeued.size,
    seconds_without_writes: await writeGaps(fleet, marks),
  };
}

/** Runs the drill on `instance` (started here, stopped at the end); resolves with the run and its losses. */
export async function runPatroniDrill(instance: PatroniInstance, name: string) {
  let database: ClusterDatabase | undefined;
  let losses: Losses | undefined;
  const marks: Record<string, number[]> = {};
  try {
    await startEngine(instance.name);
    database = await createClusterDatabase(instance);
    console.log(`[drill] ${instance.name} serves at ${new Date().toISOString()}; the fleet starts`);
    const run = await runFleetFaults({
      name,
      seconds: 20,
      faultEverySeconds: 6,
      faults: failovers(instance, marks),
      fleet: { databaseUrl: database.url },
      afterLoad: async (fleet, load) => void (losses = await countLosses(fleet, load, marks)),
    });
    reportFigures(`${name}-losses`, { ...losses! });
    return { run, losses: losses! };
  } finally {
    await database?.drop().catch(() => undefined);
    // The drill's cluster is its own: its memory (~220 MB) goes back to the machine.
    await stopEngine(instance.name, { remove: true });
  }
}
