import {
  type CpuSlot,
  DelayedError,
  type IntakeEntry,
  type Job,
  type JobName,
  type QueueName,
  UnrecoverableError,
  type WorkerStatusStore,
} from '@framedesk/queues';
import type { AnyJobHandler, JobContext, WorkerDeps } from './jobs/job-handler';
import { classifyJobError, serverFaultDelayMs } from './job-errors';
import type { HandlerRegistry } from './jobs/registry';
import type { ImageRuns } from './image-runs';
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
  /** Where image runs are recorded and crashes blamed (image-runs.ts); without it, images run unrecorded. */
  readonly imageRuns?: ImageRuns;
}

/**
 * Runs jobs through their handlers, and decides what an error means: a server fault (or an
 * unexplained error in a job that carries a submission) holds the job with back-off and leaves
 * the submission where it is; anything else is BullMQ's retry, then failure. An image from the
 * intake that does not complete goes on as a BullMQ job.
 */
export function createJobProcessor(options: JobProcessorOptions) {
  const { deps, status, backoff } = options;
  const runHandler = handlerRunner(options);

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

  /** A BullMQ job: held with back-off, else retried by BullMQ, then failed. */
  const processBullJob = async (
    queue: QueueName,
    job: Job,
    token: string | undefined,
    observed: ObservedJob,
  ): Promise<void> => {
    const result = await runHandler(
      queue,
      {
        name: job.name as JobName,
        data: job.data,
        lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
        judgeCrashes: mayFollowACrash(job),
      },
      observed,
    );
    if (result.outcome === 'held') {
      const delay = await holdForServerFault(queue, job, token, result.reason);
      observed.logger.error(
        { err: result.error, reason: result.reason, retryInSeconds: delay / 1000 },
        `server fault: ${result.reason}`,
      );
      throw new DelayedError();
    }
    if (result.outcome === 'deferred') {
      await job.moveToDelayed(Date.now() + result.retryInMs, token);
      throw new DelayedError();
    }
    await clearFault(queue, job);
    if (result.outcome !== 'completed') throw result.error;
  };

  /**
   * An image from the intake (its first run): done when it completed or failed for good; any
   * other end hands it to the image queue, whose back-off, holds and history take over.
   */
  const processIntakeEntry = async (entry: IntakeEntry, observed: ObservedJob, cpuSlot?: CpuSlot) => {
    const payload = { submissionId: entry.submissionId };
    const result = await runHandler(
      'image-processing',
      { name: 'image.process', data: payload, lastAttempt: false, ...(cpuSlot ? { cpuSlot } : {}) },
      observed,
    );
    if (result.outcome === 'completed' || (result.outcome === 'failed' && result.permanent)) return;
    if (result.outcome === 'held')
      observed.logger.error({ err: result.error, reason: result.reason }, `server fault: ${result.reason}`);
    await handToImageQueue(entry, 'intake', result.outcome === 'deferred' ? result.retryInMs : 0);
  };

  /**
   * An intake entry goes on as `image.process__<id>__<why>-<entry id>` in the image queue: after
   * a first run that did not complete (`intake`; `afterMs` later when another run of the frame
   * was live), or taken from a worker that died (`stalled`).
   */
  const handToImageQueue = (entry: IntakeEntry, why: 'intake' | 'stalled', afterMs = 0) =>
    deps.queues.enqueue(
      'image.process',
      { submissionId: entry.submissionId },
      {
        attempt: `${why}-${entry.id}`,
        origin: entry.origin,
        ...(afterMs > 0 ? { at: new Date(Date.now() + afterMs) } : {}),
      },
    );

  return { processBullJob, processIntakeEntry, handToImageQueue };
}

/**
 * A BullMQ image job whose earlier run may have ended with its worker: it stalled, or it is an
 * intake entry taken from a dead worker (`…__stalled-<entry>`) or the reconciler's re-run of a
 * frame nothing held (`…__r<time>`). A first try, a retry or a held job's next run did not.
 */
const mayFollowACrash = (job: Job) => job.stalledCounter > 0 || /__(stalled-|r\d)/.test(job.id ?? '');

/** What came of running a handler once. */
type HandlerResult =
  | { readonly outcome: 'completed' }
  | { readonly outcome: 'deferred'; readonly retryInMs: number }
  | { readonly outcome: 'held'; readonly reason: string; readonly error: Error }
  | { readonly outcome: 'failed' | 'retried'; readonly permanent: boolean; readonly error: Error };

/**
 * Runs a job's handler and says what came of it, with its metric and log line: `completed`;
 * `held` (a server fault, or an error nothing explains in a job that carries a submission: not
 * proven the media's fault, so never `failed`); `failed` (`permanent` when the handler said so,
 * the media's fault, already recorded) or `retried` when attempts remain.
 */
function handlerRunner(options: Pick<JobProcessorOptions, 'registry' | 'deps' | 'metrics' | 'stats' | 'imageRuns'>) {
  const { registry, deps, metrics, stats, imageRuns } = options;
  return async (queue: QueueName, job: RunnableJob, observed: ObservedJob): Promise<HandlerResult> => {
    const jobLogger = observed.logger;
    const handler: AnyJobHandler | undefined = registry.get(job.name);
    if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
    const context: JobContext = {
      deps,
      logger: jobLogger,
      origin: observed.origin,
      recordOutcome: observed.recordOutcome,
      ...(job.cpuSlot ? { cpuSlot: job.cpuSlot } : {}),
    };
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const begun =
        imageRuns && job.name === 'image.process'
          ? await imageRuns.begin(
              (job.data as { submissionId: string }).submissionId,
              job.judgeCrashes === true,
              jobLogger,
            )
          : undefined;
      if (begun?.kind === 'crashed') {
        // Failed processing_crashed by its crashes (recorded): not run again.
        observed.recordOutcome('failed');
        metrics.jobFinished(queue, job.name, 'failed', seconds());
        return { outcome: 'failed', permanent: true, error: new UnrecoverableError('processing_crashed') };
      }
      if (begun?.kind === 'done') {
        // A re-delivery after the frame's run (a lost acknowledgement, the reconciler's re-run): no run.
        observed.recordOutcome('skipped');
        jobLogger.info({ status: begun.status }, 'image job skipped: the frame has left the pipeline');
        metrics.jobFinished(queue, job.name, 'completed', seconds());
        return { outcome: 'completed' };
      }
      if (begun?.kind === 'running') {
        // Its one run is live elsewhere: this one looks again later (then done, or that run's worker died).
        observed.recordOutcome('deferred');
        jobLogger.info(
          { runningOn: begun.worker, retryInSeconds: begun.retryInMs / 1000 },
          'image job deferred: another run of the frame is live',
        );
        metrics.jobFinished(queue, job.name, 'retried', seconds());
        return { outcome: 'deferred', retryInMs: begun.retryInMs };
      }
      const run = begun;
      try {
        await (handler.run as (payload: unknown, context: JobContext) => Promise<void>)(job.data, context);
      } finally {
        run?.end();
      }
      metrics.jobFinished(queue, job.name, 'completed', seconds());
      return { outcome: 'completed' };
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      const kind = classifyJobError(err);
      const held =
        kind.kind === 'server' || (kind.kind === 'unknown' && handler.carriesSubmission) ? kind.reason : null;
      if (held !== null) {
        stats.serverFaults++;
        observed.recordOutcome('held');
        metrics.jobFinished(queue, job.name, 'retried', seconds());
        return { outcome: 'held', reason: held, error: err };
      }
      const permanent = err instanceof UnrecoverableError;
      const last = permanent || job.lastAttempt;
      observed.recordOutcome(last ? 'failed' : 'retried');
      metrics.jobFinished(queue, job.name, last ? 'failed' : 'retried', seconds());
      if (!permanent) jobLogger.warn({ err, willRetry: !last }, 'job failed');
      return { outcome: last ? 'failed' : 'retried', permanent, error: err };
    }
  };
}

/** What running a handler needs of a job, whichever way it came. */
interface RunnableJob {
  readonly name: JobName;
  readonly data: unknown;
  /** No attempt follows this one when it fails. */
  readonly lastAttempt: boolean;
  /** See JobContext.cpuSlot. */
  readonly cpuSlot?: CpuSlot;
  /**
   * Judge the crashes of the frame's earlier runs before it runs (image-runs.ts): every run but
   * an intake entry's, which is a frame's first.
   */
  readonly judgeCrashes?: boolean;
}
