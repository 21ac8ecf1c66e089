import { DelayedError, type Job, type Processor, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName } from './registry';

export { DelayedError, type Job, UnrecoverableError, Worker };

/** What consumes one queue, as the worker's readiness gates start and stop it. */
export interface QueueConsumer {
  /** Stops taking jobs; resolves once the running ones have finished. */
  close(): Promise<void>;
}

export interface QueueWorkerOptions {
  readonly concurrency: number;
  /** How long a job's lock lasts; renewed every half of it while the job runs. */
  readonly lockDurationMs: number;
  /** Stalls after which a job is failed (default 2). */
  readonly maxStalledCount?: number;
  /** Start paused until `worker.run()`-style resume (tests). */
  readonly autorun?: boolean;
}

/**
 * One BullMQ worker on one queue. A job whose worker died keeps its lock for `lockDurationMs`,
 * then the stalled check (run by every worker) hands it to another; a job that stalls twice is
 * failed (and the reconciler picks the submission up again).
 * `maxStalledCount` says how many stalls are allowed (2 unless set).
 */
export function createQueueWorker(
  queue: QueueName,
  connection: Redis,
  prefix: string,
  processor: Processor,
  options: QueueWorkerOptions,
): Worker {
  return new Worker(queue, processor, {
    connection,
    prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
    maxStalledCount: options.maxStalledCount ?? 2,
    autorun: options.autorun ?? true,
  });
}
