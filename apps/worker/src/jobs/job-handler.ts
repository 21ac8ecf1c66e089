import type { ProjectConfig, Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import type { CpuSlot, JobName, JobOrigin, JobPayloads, QueueProducer } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import type {
  ImageProcessingService,
  PublicVariantService,
  ReconcilerService,
  UploadPartialStores,
  VideoService,
} from '@framedesk/submissions';
import type { MediaRepairService, RetentionService } from '@framedesk/lifecycle';

/** What job handlers are given: the process's shared resources and the services built on them. */
export interface WorkerDeps {
  readonly settings: Settings;
  readonly config: ProjectConfig;
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: QueueProducer;
  readonly images: ImageProcessingService;
  readonly reconciler: ReconcilerService;
  /** Probes uploaded videos (local) or reads their state from the provider (cloudflare). */
  readonly video: VideoService;
  /** Deletes the media of frames past their channel's retention. */
  readonly retention: RetentionService;
  /** Renders a processed image's variants again (`media verify --repair`). */
  readonly repair: MediaRepairService;
  /** Where the local provider's unfinished uploads keep their partial bytes (the expiry job deletes them). */
  readonly uploadPartials: UploadPartialStores;
  /** Makes a promoted image's `public` variant (the `image.publish` job). */
  readonly publicVariant: PublicVariantService;
}

export interface JobContext {
  readonly deps: WorkerDeps;
  /** Carries queue, job, job id, attempt and (when there are) the submission id and the request id. */
  readonly logger: Logger;
  /** The request this job continues; a job the handler enqueues carries it on. */
  readonly origin: JobOrigin;
  /** What the job came to (needs_review, failed …): the job's span and the processing metric show it. */
  recordOutcome(outcome: string): void;
  /**
   * Where the runner bounds CPU-heavy work instead of whole jobs (the image intake: its jobs
   * read, store and record while others decode): the handler holds it only around that work. A
   * BullMQ job has none: it holds its slot from start to end.
   */
  readonly cpuSlot?: CpuSlot;
}

/**
 * One handler per job name (STYLE.md 6). `run` returns early on guards and calls a service; it
 * throws to have BullMQ retry (transient) or throws UnrecoverableError after recording a
 * permanent failure. A handler that `carriesSubmission` never lets an error nothing explains
 * fail its submission: the runtime holds the job like a server fault (back-off, operations page).
 */
export interface JobHandler<J extends JobName> {
  readonly name: J;
  readonly carriesSubmission?: true;
  run(payload: JobPayloads[J], context: JobContext): Promise<void>;
}

export type AnyJobHandler = { [J in JobName]: JobHandler<J> }[JobName];

/** Keeps a handler's payload type tied to its job name. */
export function defineJob<J extends JobName>(handler: JobHandler<J>): JobHandler<J> {
  return handler;
}
