import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_QUEUES, jobIdFor, type JobName, type JobPayloads, QUEUE_NAMES, type QueueName } from './registry';

/** Per-job defaults: retried with exponential back-off; kept briefly after completion. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export interface EnqueueOptions {
  /** Run no earlier than this. */
  readonly at?: Date;
  /** Distinguishes a deliberate re-run (an operator retry, the reconciler) from a duplicate. */
  readonly attempt?: string;
  /** Lower runs first (BullMQ priority). */
  readonly priority?: number;
}

export interface QueueProducer {
  enqueue<J extends JobName>(name: J, payload: JobPayloads[J], options?: EnqueueOptions): Promise<void>;
  queue(name: QueueName): Queue;
  close(): Promise<void>;
}

export function createQueueProducer(connection: Redis, prefix: string): QueueProducer {
  const queues = new Map<QueueName, Queue>(
    QUEUE_NAMES.map((name) => [name, new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS })]),
  );
  const queue = (name: QueueName) => queues.get(name)!;
  return {
    async enqueue(name, payload, options = {}) {
      const delay = options.at ? Math.max(0, options.at.getTime() - Date.now()) : undefined;
      await queue(JOB_QUEUES[name]).add(name, payload, {
        jobId: jobIdFor(name, payload, options.attempt),
        ...(delay !== undefined ? { delay } : {}),
        ...(options.priority !== undefined ? { priority: options.priority } : {}),
      });
    },
    queue,
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
