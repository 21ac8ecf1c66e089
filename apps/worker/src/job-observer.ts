import type { Database } from '@framedesk/db';
import { annotateSpan, type Logger, type PipelineMetrics, tracingEnabled, withJobSpan } from '@framedesk/observability';
import { type JobName, type JobOrigin, originOf, type QueueName } from '@framedesk/queues';

/** The media a job processes, for the processing-duration metric; the other jobs process none. */
const MEDIA_OF_JOB: Partial<Record<JobName, 'image' | 'video'>> = {
  'image.process': 'image',
  'video.process': 'video',
};

export interface ObservedJob {
  /** Carries queue, job, jobId, attempt, and the submission_id and request_id the job is about. */
  readonly logger: Logger;
  readonly origin: JobOrigin;
  /** What the job came to (needs_review, failed, skipped, retried …); the first one recorded counts. */
  recordOutcome(outcome: string): void;
}

/** A job as its logs, span and metrics name it, whichever way it came (BullMQ, the image intake). */
export interface ObservableJob {
  readonly id: string;
  readonly name: JobName;
  /** The payload, with `origin` when it has one. */
  readonly data: unknown;
  /** 1 for the first run. */
  readonly attempt: number;
  /** `bullmq`, or `redis` for the image intake's streams. */
  readonly system: 'bullmq' | 'redis';
}

export interface JobObservation {
  readonly queue: QueueName;
  readonly job: ObservableJob;
  readonly logger: Logger;
  readonly metrics: Pick<PipelineMetrics, 'processed'>;
  readonly db: Database;
}

/**
 * Runs one job inside its span (a child of the span that enqueued it, so a frame's processing is
 * part of the trace of the request that submitted it), with a logger whose every line carries the
 * submission and the request it came from, and records how long processing a frame took.
 */
export function observeJob<T>(input: JobObservation, run: (observed: ObservedJob) => Promise<T>): Promise<T> {
  const { queue, job } = input;
  const { name, attempt } = job;
  const media = MEDIA_OF_JOB[name];
  const origin = originOf(job.data);
  const submissionId = (job.data as { submissionId?: string }).submissionId;
  const logger = input.logger.child({
    queue,
    job: name,
    jobId: job.id,
    attempt,
    ...(submissionId ? { submission_id: submissionId } : {}),
    ...(origin.requestId ? { request_id: origin.requestId } : {}),
  });
  let outcome: string | undefined;
  const attributes = {
    'messaging.system': job.system,
    'messaging.operation.type': 'process',
    'messaging.destination.name': queue,
    'messaging.message.id': job.id,
    'framedesk.job.attempt': attempt,
    'framedesk.submission_id': submissionId,
    'framedesk.request_id': origin.requestId,
    'framedesk.media_type': media,
  };
  return withJobSpan(`process ${name}`, origin.trace, attributes, async () => {
    const started = process.hrtime.bigint();
    const traceParent = origin.trace?.['traceparent'];
    // The frame's trace, for the review decision's link to it (only when traces are exported).
    if (submissionId && traceParent && tracingEnabled())
      await input.db.repos.submissions.recordTraceParent(submissionId, traceParent).catch(() => undefined);
    try {
      return await run({ logger, origin, recordOutcome: (value) => void (outcome ??= value) });
    } finally {
      annotateSpan({ 'framedesk.outcome': outcome ?? 'error' });
      if (media) input.metrics.processed(media, outcome ?? 'error', Number(process.hrtime.bigint() - started) / 1e9);
    }
  });
}
