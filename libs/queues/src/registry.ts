/**
 * The one typed job registry (STYLE.md 6): every queue, its jobs and their payloads. The worker
 * registers exactly one handler per job name and refuses to boot otherwise.
 *
 * Separate queues keep interactive work from starving behind bulk work: new images never wait
 * behind video polling, expiry or maintenance.
 */
export const QUEUE_NAMES = ['image-processing', 'video-processing', 'upload-expiry', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface JobPayloads {
  /** Decode an image original and produce its variants. */
  'image.process': { readonly submissionId: string };
  /** Make a promoted image's `public` variant (enqueued by every promotion; libs/submissions public-variant.ts). */
  'image.publish': { readonly submissionId: string };
  /** Render a processed image's variants again from its original (`media verify --repair`). */
  'image.rederive': { readonly submissionId: string };
  /** Probe an uploaded video (local provider) or read its state from the provider. */
  'video.process': { readonly submissionId: string };
  /** At `expires_at`: fail an upload session that never received its media. */
  'upload.expire': { readonly submissionId: string; readonly uploadId: string };
  /** Re-enqueue submissions stuck without a live job. */
  'maintenance.reconcile': Record<string, never>;
  /** Delete expired idempotency records and reviewer sessions. */
  'maintenance.sweep': Record<string, never>;
  /** Delete the media of frames past their channel's retention. */
  'maintenance.retention': Record<string, never>;
}
export type JobName = keyof JobPayloads;

export const JOB_QUEUES: { readonly [J in JobName]: QueueName } = {
  'image.process': 'image-processing',
  'image.rederive': 'image-processing',
  'image.publish': 'image-processing',
  'video.process': 'video-processing',
  'upload.expire': 'upload-expiry',
  'maintenance.reconcile': 'maintenance',
  'maintenance.sweep': 'maintenance',
  'maintenance.retention': 'maintenance',
};

export const JOB_NAMES = Object.keys(JOB_QUEUES) as JobName[];

/**
 * Where a job comes from, kept in its data beside the payload (`data.origin`): the id of the API
 * request that caused it (its X-Request-Id), so the worker's log lines for a frame carry it, and,
 * when tracing is on, the W3C trace context (`traceparent`) of the span that enqueued it, so the
 * worker's span continues the request's trace.
 */
export interface JobOrigin {
  readonly requestId?: string;
  readonly trace?: Readonly<Record<string, string>>;
}

/** The origin a job's data carries (none for jobs enqueued before origins existed, or by timers). */
export function originOf(data: unknown): JobOrigin {
  const origin = (data as { origin?: unknown } | null)?.origin;
  if (!origin || typeof origin !== 'object') return {};
  const { requestId, trace } = origin as Record<string, unknown>;
  return {
    ...(typeof requestId === 'string' ? { requestId } : {}),
    ...(trace && typeof trace === 'object' ? { trace: trace as Record<string, string> } : {}),
  };
}

/** Jobs that run on a timer (BullMQ job schedulers), never enqueued per submission. */
export const SCHEDULED_JOBS = [
  'maintenance.reconcile',
  'maintenance.sweep',
  'maintenance.retention',
] as const satisfies readonly JobName[];

/** Job ids derive from what the job is about, so a duplicate enqueue is a no-op. */
export function jobIdFor<J extends JobName>(name: J, payload: JobPayloads[J], attempt?: string): string {
  const subject = 'submissionId' in payload ? payload.submissionId : 'singleton';
  return [name, subject, attempt].filter(Boolean).join(':').replaceAll(':', '__');
}

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}
