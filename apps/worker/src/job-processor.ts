import {
  DelayedError,
  type Job,
  type JobName,
  type QueueName,
  UnrecoverableError,
  type WorkerStatusStore,
} from '@framedesk/queues';
import type { AnyJobHandler, JobContext, WorkerDeps } from './jobs/job-handler';
import { classifyJobError, serverFaultDelayMs } from './job-errors';
import type { HandlerRegistry } from './jobs/registry';
import type { ObservedJob } from './job-observer';
import type { WorkerMetrics } from './worker-metrics';

export interface JobProcessorOptions {
  readonly registry: HandlerRegistry;
  readonly deps: WorkerDeps;
  readonly metrics: WorkerMetrics;
  /** Counts of the outcomes, for tests and logs (serverFaults is counted here). */
  readonly stats: { serverFaults: number };
  readonly status: WorkerStatusStore;
  /** Back-off of jobs held up by a server fault. */
  readonly backoff: { readonly baseMs: number; readonly maxMs: number };
}

/**
 * Runs one job through its handler, and decides what its error means: a server fault (or an
 * unexplained error in a job that carries a submission) holds the job with back-off and leaves
 * the submission where it is; anything else is BullMQ's retry, then failure.
 */
export function createJobProcessor(options: JobProcessorOptions) {
  const { registry, deps, metrics, stats, status, backoff } = options;

  /** The job waits (delayed, attempts untouched) until the fault is gone; the submission stays where it is. */
  async function holdForServerFault(queue: QueueName, job: Job, token: string | undefined, reason: string) {
    const previous = await status.findFault(queue, job.id!).catch(() => null);
    const tries = (previous?.tries ?? 0) + 1;
    const delay = serverFaultDelayMs(tries, backoff.baseMs, backoff.maxMs);
    const submissionId = (job.data as { submissionId?: string }).submissionId;
    await status
      .recordFault({
        queue,
        job: job.name as JobName,
        jobId: job.id!,
        ...(submissionId ? { submissionId } : {}),
        reason,
        since: previous?.since ?? new Date().toISOString(),
        tries,
        nextTryAt: new Date(Date.now() + delay).toISOString(),
      })
      .catch(() => undefined);
    await job.moveToDelayed(Date.now() + delay, token);
    return delay;
  }

  /**
   * A fault is recorded only for a job that ran before (held, then run again: BullMQ counts every
   * start), so a job on its first start has none to clear and costs Redis nothing here.
   */
  const clearFault = async (queue: QueueName, job: Job) => {
    if (job.attemptsStarted > 1) await status.clearFault(queue, job.id!).catch(() => undefined);
  };

  return async (queue: QueueName, job: Job, token: string | undefined, observed: ObservedJob): Promise<void> => {
    const name = job.name as JobName;
    const jobLogger = observed.logger;
    const handler: AnyJobHandler | undefined = registry.get(name);
    if (!handler) throw new UnrecoverableError(`no handler for job ${name}`);
    const context: JobContext = {
      deps,
      logger: jobLogger,
      job,
      origin: observed.origin,
      recordOutcome: observed.recordOutcome,
    };
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      await (handler.run as (payload: unknown, context: JobContext) => Promise<void>)(job.data, context);
      metrics.jobFinished(queue, name, 'completed', seconds());
      await clearFault(queue, job);
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      const kind = classifyJobError(err);
      // A server fault, or an error nothing explains in a job that carries a submission: not
      // proven the media's fault, so never `failed`; tried again, backing off, while it lasts.
      const held =
        kind.kind === 'server' || (kind.kind === 'unknown' && handler.carriesSubmission) ? kind.reason : null;
      if (held !== null) {
        stats.serverFaults++;
        observed.recordOutcome('held');
        metrics.jobFinished(queue, name, 'retried', seconds());
        const delay = await holdForServerFault(queue, job, token, held);
        jobLogger.error({ err, reason: held, retryInSeconds: delay / 1000 }, `server fault: ${held}`);
        throw new DelayedError();
      }
      await clearFault(queue, job);
      const permanent = err instanceof UnrecoverableError;
      const last = permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      observed.recordOutcome(last ? 'failed' : 'retried');
      metrics.jobFinished(queue, name, last ? 'failed' : 'retried', seconds());
      if (!permanent) jobLogger.warn({ err, willRetry: !last }, 'job failed');
      throw err;
    }
  };
}
