import type { ProjectConfig } from '@framedesk/config';
import type { Database, Repositories } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import type { QueueProducer } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import type { VideoProvider } from '@framedesk/video-provider';
import type { VariantUrl } from './submission-views';

/** The agent behind the request's API key. */
export interface AgentCaller {
  readonly apiKeyId: string;
  readonly agentId: string;
  readonly agentSlug: string;
  /** The request's id (X-Request-Id): carried by the jobs it enqueues, into the worker's logs. */
  readonly requestId?: string | undefined;
}

/** This request's claim on its Idempotency-Key; completed in the transaction that does the work. */
export interface IdempotencyToken {
  readonly apiKeyId: string;
  readonly key: string;
  readonly lockedUntil: Date;
}

export interface SubmissionsLogger {
  warn(details: object, message: string): void;
}

export interface SubmissionsDependencies {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: Pick<QueueProducer, 'enqueue' | 'submitImage'>;
  readonly videoProvider: VideoProvider;
  readonly config: ProjectConfig;
  readonly logger: SubmissionsLogger;
  readonly variantUrl: VariantUrl;
  readonly now?: () => Date;
  /** BullMQ waits for Redis indefinitely; past this the job is left to the reconciler (default 3 s). */
  readonly enqueueTimeoutMs?: number;
  readonly limits?: UploadLimits;
}

/** Operational bounds on video uploads (settings VIDEO_MAX_BYTES, AGENT_OPEN_UPLOADS_MAX, AGENT_OPEN_UPLOAD_BYTES_MAX). */
export interface UploadLimits {
  readonly videoMaxBytes: number;
  readonly openUploadsPerAgent: number;
  readonly openUploadBytesPerAgent: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  videoMaxBytes: 4 * 1024 ** 3,
  openUploadsPerAgent: 20,
  openUploadBytesPerAgent: 16 * 1024 ** 3,
};

export interface Created<T> {
  readonly status: number;
  readonly body: T;
}

/** What the create paths of the submissions service share. */
export function serviceSupport(deps: SubmissionsDependencies) {
  /** Enqueues after commit; a failure or a hang only delays the job (the reconciler enqueues it). */
  async function enqueueAfterCommit(run: () => Promise<void>, details: object): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('enqueue timed out')), deps.enqueueTimeoutMs ?? 3_000);
    });
    try {
      await Promise.race([run(), timeout]);
    } catch (error) {
      deps.logger.warn({ err: error, ...details }, 'enqueue failed; the reconciler will pick it up');
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The image's first run, after commit, through the image intake in the band of the agent's
   * current backlog, so one agent's flood cannot starve the others. `knownBacklog`: when the
   * statement that created the frame already counted it.
   */
  async function enqueueImage(caller: AgentCaller, submissionId: string, knownBacklog?: number): Promise<void> {
    await enqueueAfterCommit(
      async () => {
        const backlog = knownBacklog ?? (await deps.db.repos.backlog.imageBacklog(caller.agentId).catch(() => 1));
        await deps.queues.submitImage(submissionId, { backlog, origin: { requestId: caller.requestId } });
      },
      { submission_id: submissionId },
    );
  }

  /** 403 unless the caller is `agentSlug` and may post to `channelSlug`; the channel's id otherwise. */
  async function authorize(
    repos: Repositories,
    caller: AgentCaller,
    agentSlug: string,
    channelSlug: string,
  ): Promise<string> {
    if (agentSlug !== caller.agentSlug) {
      throw new DomainError(
        'forbidden',
        `agent_slug "${agentSlug}" is not the agent of this API key (${caller.agentSlug}).`,
      );
    }
    const channel = await repos.channels.findBySlug(channelSlug);
    if (!channel || !(await repos.agents.isAllowedOnChannel(caller.agentId, channel.id))) {
      throw new DomainError('forbidden', `Agent "${caller.agentSlug}" may not post to channel "${channelSlug}".`);
    }
    return channel.id;
  }

  async function completeIdempotency(
    repos: Repositories,
    token: IdempotencyToken,
    status: number,
    body: unknown,
  ): Promise<void> {
    const owned = await repos.idempotency.complete({ ...token, status, body });
    // Our lock expired and a retry took the key over: roll back and let that retry win.
    if (!owned)
      throw new DomainError('idempotency_key_in_use', 'A retry with this Idempotency-Key took over this request.', {
        headers: { 'Retry-After': '1' },
      });
  }

  return { enqueueAfterCommit, enqueueImage, authorize, completeIdempotency };
}
