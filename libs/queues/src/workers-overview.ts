import type { QueueProducer } from './producer';
import { QUEUE_NAMES, type QueueName } from './registry';
import type { WorkerStatusStore } from './worker-status';

/** What each queue's jobs are, in words, for the banner ("3 videos waiting — …"). */
const WORK: Record<QueueName, { one: string; many: string; what: string }> = {
  'image-processing': { one: 'image', many: 'images', what: 'images' },
  'video-processing': { one: 'video', many: 'videos', what: 'video' },
  'upload-expiry': { one: 'upload expiry', many: 'upload expiries', what: 'upload expiries' },
  maintenance: { one: 'maintenance job', many: 'maintenance jobs', what: 'maintenance' },
};

const HELD_STATES = new Set(['delayed', 'waiting', 'prioritized', 'active']);

export interface QueueWorkers {
  /** Worker connections consuming the queue now (BullMQ's own count). */
  readonly workers: number;
  /** Jobs ready to run (waiting or prioritised). */
  readonly waiting: number;
  /** Why worker processes that serve this queue do not consume it, one line per distinct reason. */
  readonly unavailable: readonly string[];
}

export interface WorkersOverview {
  readonly queues: Record<QueueName, QueueWorkers>;
  /** One line per queue with waiting jobs and nobody consuming it. */
  readonly banners: readonly string[];
  readonly server_faults: readonly {
    readonly queue: QueueName;
    readonly job: string;
    readonly submission_id: string | null;
    readonly reason: string;
    readonly since: string;
    readonly age_seconds: number;
    readonly tries: number;
    readonly next_try_at: string;
  }[];
}

/** Who can work: per queue the consuming workers, a banner where work waits for nobody, and jobs held by server faults. */
export async function workersOverview(
  producer: Pick<QueueProducer, 'queue' | 'counts'>,
  status: Pick<WorkerStatusStore, 'readiness' | 'faults'>,
  now = new Date(),
): Promise<WorkersOverview> {
  const [counts, reports, recorded, workers] = await Promise.all([
    producer.counts(),
    status.readiness(),
    status.faults(),
    Promise.all(QUEUE_NAMES.map((q) => producer.queue(q).getWorkersCount())),
  ]);
  // A record outlives its job only if the job was removed by hand: show the held ones only.
  const states = await Promise.all(recorded.map((f) => producer.queue(f.queue).getJobState(f.jobId)));
  const faults = recorded.filter((_, i) => HELD_STATES.has(states[i] ?? 'unknown'));
  const banners: string[] = [];
  const queues = Object.fromEntries(
    QUEUE_NAMES.map((queue, i) => {
      const c = counts[queue];
      const waiting = (c['waiting'] ?? 0) + (c['prioritized'] ?? 0);
      const unavailable = [
        ...new Set(
          reports.flatMap((r) => {
            const q = r.queues[queue];
            return q?.status === 'unavailable' && q.reason ? [q.reason] : [];
          }),
        ),
      ];
      const n = workers[i] ?? 0;
      if (waiting > 0 && n === 0) {
        const work = WORK[queue];
        const why = unavailable.length > 0 ? unavailable.join('; ') : 'no worker serves this queue';
        banners.push(
          `${waiting} ${waiting === 1 ? work.one : work.many} waiting — no worker can process ${work.what}: ${why}`,
        );
      }
      return [queue, { workers: n, waiting, unavailable }];
    }),
  ) as unknown as Record<QueueName, QueueWorkers>;
  return {
    queues,
    banners,
    server_faults: faults
      .sort((a, b) => a.since.localeCompare(b.since))
      .map((f) => ({
        queue: f.queue,
        job: f.job,
        submission_id: f.submissionId ?? null,
        reason: f.reason,
        since: f.since,
        age_seconds: Math.max(0, Math.round((now.getTime() - Date.parse(f.since)) / 1000)),
        tries: f.tries,
        next_try_at: f.nextTryAt,
      })),
  };
}
