import type { Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import { recordProcessingCrash } from '@framedesk/submissions';
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
import { createJobProcessor, type JobProcessorOptions } from './job-processor';
import { observeJob } from './job-observer';

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
  const { processBullJob, processIntakeEntry, handToImageQueue } = createJobProcessor(options.processor);
  const observed = { logger, metrics: metrics.pipeline, db };

  const processor = (queue: QueueName) => async (job: Job, token?: string) => {
    if (job.name === 'image.process' && (await stalledTooOften(job))) return;
    return observeJob(
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
  };

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
      async reclaimed(entry) {
        stats.stalled++;
        metrics.jobStalled('image-processing');
        const crash = await recordProcessingCrash(db, entry.submissionId, settings.WORKER_CRASH_LIMIT);
        const fields = { queue: 'image-processing', entry: entry.id, submission_id: entry.submissionId, ...crash };
        if (crash.failed) {
          logger.error(fields, 'image stalled once too often: failed processing_crashed');
          return;
        }
        logger.warn(fields, 'image stalled; handed to the image queue');
        await handToImageQueue(entry, 'stalled');
      },
      onError: (error, what) => logger.warn({ err: error, queue: 'image-processing' }, what),
    });

  /**
   * A run of an image whose worker ended while it ran (a stall) is counted on its frame, which
   * fails `processing_crashed` at the limit. Counted by the run that follows, before it starts
   * (the worker that found the stall is often the next to run the job, and to die of it), and
   * by BullMQ's failure of a job that stalled more than `maxStalledCount` times.
   */
  const countCrash = async (jobId: string, submissionId: string) => {
    const crash = await recordProcessingCrash(db, submissionId, settings.WORKER_CRASH_LIMIT);
    if (crash.failed)
      logger.error(
        { jobId, submission_id: submissionId, ...crash },
        'image stalled once too often: failed processing_crashed',
      );
    return crash.failed;
  };
  const crashedTooOften = (job: Job) => countCrash(job.id!, (job.data as { submissionId: string }).submissionId);

  /**
   * BullMQ's `stalledCounter` only grows: every run after a stall sees it, including the runs of a
   * job held for a server fault. The stalls counted so far are kept in the job's data, so each
   * stall is one crash however often the job runs after it.
   */
  const stalledTooOften = async (job: Job) => {
    const counted = (job.data as { stallsCounted?: number }).stallsCounted ?? 0;
    if (job.stalledCounter <= counted) return false;
    if (await crashedTooOften(job)) return true;
    await job.updateData({ ...job.data, stallsCounted: job.stalledCounter });
    return false;
  };

  return (queue) => {
    const worker = createQueueWorker(queue, connection, settings.REDIS_PREFIX, processor(queue), {
      concurrency: settings.WORKER_CONCURRENCY,
      lockDurationMs: settings.WORKER_LOCK_SECONDS * 1000,
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
    worker.on('failed', (job, error) => {
      stats.failed++;
      // BullMQ fails a job that stalled more than `maxStalledCount` times: its last crash.
      if (job?.name === 'image.process' && error.message.includes('stalled more than'))
        crashedTooOften(job).catch((err: unknown) => logger.warn({ err, jobId: job.id }, 'crash not counted'));
    });
    if (queue !== 'image-processing') return worker;
    const intake = consumeImageIntake();
    return { close: async () => void (await Promise.all([intake.close(), worker.close()])) };
  };
}
