import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { currentTraceCarrier } from '@framedesk/observability';
import { addToIntake, intakeStats } from './image-intake';
import { oldestWaitingSince } from './queue-age';
import {
  JOB_QUEUES,
  jobIdFor,
  type JobOrigin,
  type JobName,
  type JobPayloads,
  QUEUE_NAMES,
  type QueueName,
  type SCHEDULED_JOBS,
} from './registry';

/**
 * Per-job defaults: retried with exponential back-off; removed as soon as it completes (nothing
 * reads a completed job: the submission's status and events say what happened, and `hasLiveJob`
 * treats completed and missing alike), which spares BullMQ the completed set's bookkeeping and
 * trimming on every job; failed jobs are kept a week for operators.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * BullMQ appends every job's events (added, waiting, active, completed …) to a stream per queue,
 * 10,000 kept by default. Nothing here reads it (no QueueEvents listener: the submission's events
 * and the review-change stream are what is read), so it is trimmed to nothing as it goes: the
 * appends remain (BullMQ's scripts always make them), the memory does not.
 */
export const EVENTS_STREAM = { events: { maxLen: 0 } } as const;

export interface EnqueueOptions {
  /** Run no earlier than this. */
  readonly at?: Date;
  /** Distinguishes a deliberate re-run (an operator retry, the reconciler) from a duplicate. */
  readonly attempt?: string;
  /** Lower runs first (BullMQ priority). */
  readonly priority?: number;
  /** The request (or the job) this one continues; the current trace context is added by itself. */
  readonly origin?: Pick<JobOrigin, 'requestId'>;
}

/** What a job carries of where it comes from: the request id given and the current trace context; undefined for neither. */
function jobOrigin(origin: EnqueueOptions['origin']): JobOrigin | undefined {
  const trace = currentTraceCarrier();
  if (!origin?.requestId && !trace) return undefined;
  return { ...(origin?.requestId ? { requestId: origin.requestId } : {}), ...(trace ? { trace } : {}) };
}

/** The payload, and `origin` when there is one to carry. */
function jobData(payload: object, origin: EnqueueOptions['origin']): object {
  const carried = jobOrigin(origin);
  return carried ? { ...payload, origin: carried } : payload;
}

/** Priority of re-runs (reconciler, operator retries): behind new work, which has none. */
export const RERUN_PRIORITY = 10;

/** How long the id of a re-run is remembered (longer than any job waits). */
const RERUN_MEMORY_SECONDS = 7 * 24 * 3600;

/** BullMQ states in which a job will still run (or is running). */
const LIVE_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export type JobStateName =
  'active' | 'waiting' | 'delayed' | 'prioritized' | 'waiting-children' | 'completed' | 'failed' | 'missing';

export interface QueueProducer {
  /**
   * A new image for the workers, through the image intake (image-intake.ts): its first run, in
   * the band of its agent's `backlog` (the images it has waiting, this one included).
   */
  submitImage(submissionId: string, options: { backlog: number; origin?: EnqueueOptions['origin'] }): Promise<void>;
  /**
   * When the oldest image still in the intake (waiting or running) was added (epoch ms), or null.
   * An image added later than that may still be there; one added earlier has run.
   */
  intakeOldestEntryAt(): Promise<number | null>;
  enqueue<J extends JobName>(name: J, payload: JobPayloads[J], options?: EnqueueOptions): Promise<void>;
  /** The state of the job `enqueue(name, payload, { attempt })` made; `missing` when there is none. */
  jobState<J extends JobName>(name: J, payload: JobPayloads[J], attempt?: string): Promise<JobStateName>;
  /** True while that job is waiting, delayed or running. */
  isLive<J extends JobName>(name: J, payload: JobPayloads[J], attempt?: string): Promise<boolean>;
  /**
   * Enqueues a deliberate re-run (reconciler): a fresh job id, behind new work, remembered so
   * `hasLiveJob` sees it. Returns the attempt suffix used.
   */
  enqueueRerun<J extends JobName>(
    name: J,
    payload: JobPayloads[J],
    options?: { at?: Date; origin?: EnqueueOptions['origin'] },
  ): Promise<string>;
  /**
   * True while the original job, or the latest job enqueued with an attempt suffix (a re-run, a
   * video status poll), of `name` for this payload is waiting, delayed or running.
   */
  hasLiveJob<J extends JobName>(name: J, payload: JobPayloads[J]): Promise<boolean>;
  /** Creates or updates the one scheduler of a periodic job (idempotent; safe from every worker). */
  schedule(name: (typeof SCHEDULED_JOBS)[number], everyMs: number): Promise<void>;
  /** Job counts per queue and state (for queue-depth metrics and the ops page). */
  counts(): Promise<Record<QueueName, Record<string, number>>>;
  /** Per queue, how long its oldest waiting job has waited, in seconds (null: none waits). One round trip. */
  oldestWaitingSeconds(now?: number): Promise<Record<QueueName, number | null>>;
  /** Per queue, the worker connections consuming it now (BullMQ's count). */
  workerCounts(): Promise<Record<QueueName, number>>;
  queue(name: QueueName): Queue;
  close(): Promise<void>;
}

export function createQueueProducer(connection: Redis, prefix: string): QueueProducer {
  const queues = new Map<QueueName, Queue>(
    QUEUE_NAMES.map((name) => [
      name,
      new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS, streams: EVENTS_STREAM }),
    ]),
  );
  const queue = (name: QueueName) => queues.get(name)!;
  const jobState: QueueProducer['jobState'] = async (name, payload, attempt) => {
    const state = await queue(JOB_QUEUES[name]).getJobState(jobIdFor(name, payload, attempt));
    return state === 'unknown' ? 'missing' : (state as JobStateName);
  };
  const rerunKey = (name: JobName, payload: JobPayloads[JobName]) => `${prefix}:reruns:${jobIdFor(name, payload)}`;
  const enqueue: QueueProducer['enqueue'] = async (name, payload, options = {}) => {
    // The latest attempt-suffixed job is remembered so `hasLiveJob` (the reconciler) sees it too.
    // Written first: a crash between the two writes leaves a pointer to nothing (harmless).
    if (options.attempt) await connection.set(rerunKey(name, payload), options.attempt, 'EX', RERUN_MEMORY_SECONDS);
    const delay = options.at ? Math.max(0, options.at.getTime() - Date.now()) : undefined;
    await queue(JOB_QUEUES[name]).add(name, jobData(payload, options.origin), {
      jobId: jobIdFor(name, payload, options.attempt),
      ...(delay !== undefined ? { delay } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
    });
  };
  return {
    async submitImage(submissionId, options) {
      const origin = jobOrigin(options.origin);
      await addToIntake(connection, prefix, { submissionId, backlog: options.backlog, ...(origin ? { origin } : {}) });
    },
    async intakeOldestEntryAt() {
      return (await intakeStats(connection, prefix)).oldestEntryAt;
    },
    enqueue,
    async enqueueRerun(name, payload, options = {}) {
      const attempt = `r${Date.now()}${Math.floor(Math.random() * 1000)}`;
      await enqueue(name, payload, {
        attempt,
        priority: RERUN_PRIORITY,
        ...(options.at ? { at: options.at } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
      });
      return attempt;
    },
    async hasLiveJob(name, payload) {
      if (LIVE_STATES.has(await jobState(name, payload))) return true;
      const attempt = await connection.get(rerunKey(name, payload));
      return attempt !== null && LIVE_STATES.has(await jobState(name, payload, attempt));
    },
    jobState,
    async isLive(name, payload, attempt) {
      return LIVE_STATES.has(await jobState(name, payload, attempt));
    },
    async schedule(name, everyMs) {
      await queue(JOB_QUEUES[name]).upsertJobScheduler(
        name,
        { every: everyMs },
        { name, data: {}, opts: { attempts: 1, removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
      );
    },
    async counts() {
      const intake = intakeStats(connection, prefix);
      const entries = await Promise.all(
        QUEUE_NAMES.map(
          async (name) =>
            [
              name,
              await queue(name).getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'),
            ] as const,
        ),
      );
      const counts = Object.fromEntries(entries) as Record<QueueName, Record<string, number>>;
      // The intake's images are the image queue's too: waiting until read, active until acknowledged.
      const { waiting, running } = await intake;
      const image = counts['image-processing'];
      counts['image-processing'] = {
        ...image,
        waiting: (image['waiting'] ?? 0) + waiting,
        active: (image['active'] ?? 0) + running,
      };
      return counts;
    },
    async oldestWaitingSeconds(now = Date.now()) {
      const [since, intake] = await Promise.all([
        oldestWaitingSince(connection, QUEUE_NAMES.map(queue)),
        intakeStats(connection, prefix),
      ]);
      const image = QUEUE_NAMES.indexOf('image-processing');
      if (intake.oldestWaitingSince !== null)
        since[image] = Math.min(since[image] ?? Infinity, intake.oldestWaitingSince);
      return Object.fromEntries(
        QUEUE_NAMES.map((name, i) => [name, since[i] == null ? null : Math.max(0, (now - since[i]!) / 1000)]),
      ) as Record<QueueName, number | null>;
    },
    async workerCounts() {
      const counts = await Promise.all(QUEUE_NAMES.map((name) => queue(name).getWorkersCount()));
      return Object.fromEntries(QUEUE_NAMES.map((name, i) => [name, counts[i] ?? 0])) as Record<QueueName, number>;
    },
    queue,
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
