import type { ProjectConfig, Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import type { Job, JobName, JobPayloads, QueueProducer } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import type {
  ImageProcessingService,
  MediaRepairService,
  ReconcilerService,
  RetentionService,
  VideoService,
} from '@framedesk/submissions';

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
}

export interface JobContext {
  readonly deps: WorkerDeps;
  /** Carries queue, job, job id, attempt and (when there is one) the submission id. */
  readonly logger: Logger;
  readonly job: Job;
}

/**
 * One handler per job name (STYLE.md 6). `run` returns early on guards and calls a service; it
 * throws to have BullMQ retry (transient) or throws UnrecoverableError after recording a
 * permanent failure. `exhausted` runs when the last attempt of a transient failure fails.
 */
export interface JobHandler<J extends JobName> {
  readonly name: J;
  run(payload: JobPayloads[J], context: JobContext): Promise<void>;
  exhausted?(payload: JobPayloads[J], error: Error, context: JobContext): Promise<void>;
}

export type AnyJobHandler = { [J in JobName]: JobHandler<J> }[JobName];

/** Keeps a handler's payload type tied to its job name. */
export function defineJob<J extends JobName>(handler: JobHandler<J>): JobHandler<J> {
  return handler;
}
