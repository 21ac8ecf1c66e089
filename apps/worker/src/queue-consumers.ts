import type { Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import {
  consumeIntake,
  createQueueWorker,
  isRedisTransient,
  type Job,
  type JobName,
  type QueueConsumer,
  type QueueName,
  type Redis,
} from '@framedesk/queues';
import { createImageRuns } from './image-runs';
import { createJobProcessor, type JobProcessorOptions } from './job-processor';
import { observeJob } from './job-observer';

/**
 * Stalls after which BullMQ fails an image job (the reconciler re-runs its frame): far above any
 * crash limit, since a frame's crashes are its runs' (image-runs.ts), not its job's stalls.
 */
const IMAGE_MAX_STALLS = 50;

export interface QueueConsumersOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly connection: Redis;
  /** This process's name among the workers (the intake's consumer name). */
  readonly workerName: string;
  /** The database as jobs see it (their spans record the frame's trace on it). */
  readonly db: Database;
  readonly processor: JobProcessorOptions & { readonly stats: { stalled: number; completed: number; failed: number } };
}

/**
 * What starts consuming one queue: its BullMQ worker, `WORKER_CONCURRENCY` jobs at once, and for
 * `image-processing` the image intake's consumer beside it (new images' first runs,
 * `WORKER_CONCURRENCY` at a time too). Every job runs observed (span, logger, metrics).
 */
/** BullMQ's words for a job lock that Redis no longer holds (a failover rolled it back, or a stall). */
const LOCK_LOST = /^(Missing lock for job|could not renew lock for job)/;

export function queueConsumers(options: QueueConsumersOptions): (queue: QueueName) => QueueConsumer {
  const { settings, logger, connection, db } = options;
  const { metrics, stats } = options.processor;
  const imageRuns = createImageRuns({
    db,
    worker: options.workerName,
    lockDurationMs: settings.WORKER_LOCK_SECONDS * 1000,
    crashLimit: settings.WORKER_CRASH_LIMIT,
    logger,
  });
  const { processBullJob, processIntakeEntry, handToImageQueue } = createJobProcessor({
    ...options.processor,
    imageRuns,
  });
  const observed = { logger, metrics: metrics.pipeline, db };

  const processor = (queue: QueueName) => async (job: Job, token?: string) =>
    observeJob(
      {
        ...observed,
        queue,
        job: {
          id: job.id!,
          name: job.name as JobName,
          data: job.data,
          attempt: job.attemptsMade + 1,
          system: 'bullmq',
        },
      },
      (run) => processBullJob(queue, job, token, run),
    );

  /** New images' first runs, from the image intake (libs/queues/src/image-intake.ts). */
  const consumeImageIntake = () =>
    consumeIntake(connection, {
      prefix: settings.REDIS_PREFIX,
      consumer: options.workerName,
      concurrency: settings.WORKER_CONCURRENCY,
      lockDurationMs: settings.WORKER_LOCK_SECONDS * 1000,
      async process(entry, cpuSlot) {
        const data = { submissionId: entry.submissionId, origin: entry.origin };
        const job = { id: entry.id, name: 'image.process', data, attempt: 1, system: 'redis' } as const;
        await observeJob({ ...observed, queue: 'image-processing', job }, (run) =>
          processIntakeEntry(entry, run, cpuSlot),
        );
        stats.completed++;
      },
      // The crash, if its run had started, is judged when it runs again (image-runs.ts).
      async reclaimed(entry) {
        stats.stalled++;
        metrics.jobStalled('image-processing');
        logger.warn(
          { queue: 'image-processing', entry: entry.id, submission_id: entry.submissionId },
          'image stalled; handed to the image queue',
        );
        await handToImageQueue(entry, 'stalled');
      },
      onError: (error, what) => logger.warn({ err: error, queue: 'image-processing' }, what),
    });

  return (queue) => {
    const worker = createQueueWorker(queue, connection, settings.REDIS_PREFIX, processor(queue), {
      concurrency: settings.WORKER_CONCURRENCY,
      lockDurationMs: settings.WORKER_LOCK_SECONDS * 1000,
      // An image's crashes are judged by its runs (image-runs.ts): a job that stalled while it
      // waited its turn beside a poison image did not crash anything.
      ...(queue === 'image-processing' ? { maxStalledCount: IMAGE_MAX_STALLS } : {}),
    });
    // A Redis failover (READONLY, NOREPLICAS, UNBLOCKED, a reset): BullMQ retries on its own.
    // A lock lost with the old primary: the job runs again (stalled check, reconciler), harmlessly.
    worker.on('error', (error) =>
      isRedisTransient(error) || LOCK_LOST.test(error.message)
        ? logger.warn({ err: error, queue }, 'worker: Redis unavailable or switching primaries; retrying')
        : logger.error({ err: error, queue }, 'worker error'),
    );
    worker.on('stalled', (jobId) => {
      stats.stalled++;
      metrics.jobStalled(queue);
      logger.warn({ queue, jobId }, 'job stalled; handed back to the queue');
    });
    worker.on('completed', () => void stats.completed++);
    worker.on('failed', () => void stats.failed++);
    if (queue !== 'image-processing') return worker;
    const intake = consumeImageIntake();
    return { close: async () => void (await Promise.all([intake.close(), worker.close()])) };
  };
}
