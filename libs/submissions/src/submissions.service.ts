import type { Readable } from 'node:stream';
import type { ProjectConfig } from '@framedesk/config';
import type {
  FrameMetadata,
  FrameSubmission,
  FrameSubmissionList,
  MediaUpload,
  MediaUploadRequest,
} from '@framedesk/contracts';
import { LIST_LIMIT_DEFAULT } from '@framedesk/contracts';
import type { Database, Repositories } from '@framedesk/db';
import { DomainError, frameDateOf, isId, newId, type SubmissionStatus } from '@framedesk/domain';
import type { QueueProducer } from '@framedesk/queues';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import type { UploadProtocol, VideoProvider } from '@framedesk/video-provider';
import { decodeCursor, encodeCursor } from './cursor';
import { toFrameSubmission, toMediaUpload, type VariantUrl } from './submission-views';

/** The agent behind the request's API key. */
export interface AgentCaller {
  readonly apiKeyId: string;
  readonly agentId: string;
  readonly agentSlug: string;
}

/** This request's claim on its Idempotency-Key; completed in the transaction that does the work. */
export interface IdempotencyToken {
  readonly apiKeyId: string;
  readonly key: string;
  readonly lockedUntil: Date;
}

/** The image, already received (and hashed) by the transport; `open` streams its bytes. */
export interface IncomingImage {
  open(): Readable;
  readonly byteSize: number;
  readonly sha256: string;
  readonly contentType: string;
}

export interface SubmissionsLogger {
  warn(details: object, message: string): void;
}

export interface SubmissionsDependencies {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: Pick<QueueProducer, 'enqueue'>;
  readonly videoProvider: VideoProvider;
  readonly config: ProjectConfig;
  readonly logger: SubmissionsLogger;
  readonly variantUrl: VariantUrl;
  readonly now?: () => Date;
  /** BullMQ waits for Redis indefinitely; past this the job is left to the reconciler (default 3 s). */
  readonly enqueueTimeoutMs?: number;
}

export interface Created<T> {
  readonly status: number;
  readonly body: T;
}

// Without media.small_video_max_bytes, one basic upload carries up to Cloudflare's 200 MB.
export const DEFAULT_SMALL_VIDEO_MAX_BYTES = 200 * 1024 * 1024;

export function submissionsService(deps: SubmissionsDependencies) {
  const now = deps.now ?? (() => new Date());
  const bucket = deps.config.storage.vendor_originals_bucket;

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

  async function resource(id: string, agentId: string): Promise<FrameSubmission> {
    const row = await deps.db.repos.submissions.findResourceForAgent(id, agentId);
    if (!row) throw new DomainError('not_found', `No frame submission ${id}.`);
    return toFrameSubmission(row, deps.variantUrl);
  }

  return {
    /**
     * An image frame: the original goes to storage first; then submission, first event, media
     * object and the completed idempotency record commit together; then `image.process` is
     * enqueued (if that fails, the reconciler enqueues it later: the submission is safe).
     */
    async createImageSubmission(input: {
      caller: AgentCaller;
      metadata: FrameMetadata;
      image: IncomingImage;
      idempotency: IdempotencyToken;
    }): Promise<Created<FrameSubmission>> {
      const { caller, metadata, image } = input;
      const channelId = await authorize(deps.db.repos, caller, metadata.agent_slug, metadata.channel_slug);
      const id = newId('submission');
      const key = storageKeys.original(id, 'png');
      const stored = await deps.storage.put(bucket, key, image.open(), {
        contentType: image.contentType,
        maxBytes: deps.config.media.multipart_max_bytes,
      });
      let body: FrameSubmission;
      try {
        body = await deps.db.transaction(async (repos) => {
          const { agent_slug: _a, channel_slug: _c, date, ...described } = metadata;
          const row = await repos.submissions.create(
            {
              id,
              status: 'received',
              mediaType: 'image',
              agentId: caller.agentId,
              channelId,
              date,
              metadata: described,
              title: described.title ?? null,
              visibility: deps.config.approval_defaults.initial_visibility,
            },
            { type: 'agent', id: caller.agentId },
          );
          await repos.mediaObjects.upsert({
            submissionId: id,
            kind: 'original',
            name: 'original',
            bucket,
            key,
            contentType: image.contentType,
            byteSize: stored.byteSize,
            sha256: stored.sha256,
          });
          const created = toFrameSubmission({ ...row, upload: null, media: [] }, deps.variantUrl);
          await completeIdempotency(repos, input.idempotency, 202, created);
          return created;
        });
      } catch (error) {
        await deps.storage
          .delete(bucket, key)
          .catch((e: unknown) => deps.logger.warn({ err: e, key }, 'could not delete an orphaned original'));
        throw error;
      }
      await enqueueAfterCommit(() => deps.queues.enqueue('image.process', { submissionId: id }), { submission_id: id });
      return { status: 202, body };
    },

    /**
     * A video: the provider opens an upload session, then submission, first event, upload row
     * and the completed idempotency record commit together; expiry is scheduled at `expires_at`.
     */
    async createVideoUpload(input: {
      caller: AgentCaller;
      request: MediaUploadRequest;
      idempotency: IdempotencyToken;
    }): Promise<Created<MediaUpload>> {
      const { caller, request } = input;
      const channelId = await authorize(deps.db.repos, caller, request.agent_slug, request.channel_slug);
      const createdAt = now();
      const submissionId = newId('submission');
      const uploadId = newId('upload');
      const expiresAt = new Date(
        createdAt.getTime() + deps.config.delivery.vendor_stream_upload_expires_seconds * 1000,
      );
      const protocol: UploadProtocol =
        request.byte_size > (deps.config.media.small_video_max_bytes ?? DEFAULT_SMALL_VIDEO_MAX_BYTES)
          ? 'tus'
          : 'basic';
      let session;
      try {
        session = await deps.videoProvider.createUpload({
          uploadId,
          submissionId,
          byteSize: request.byte_size,
          contentType: request.content_type,
          filename: request.filename,
          expiresAt,
          protocol,
          ...(deps.config.media.video_max_duration_seconds
            ? { maxDurationSeconds: deps.config.media.video_max_duration_seconds }
            : {}),
        });
      } catch (error) {
        throw new DomainError(
          'service_unavailable',
          'The video provider did not open an upload session; retry later.',
          { cause: error, headers: { 'Retry-After': '5' } },
        );
      }
      let body: MediaUpload;
      try {
        body = await deps.db.transaction(async (repos) => {
          const described = request.metadata ?? {};
          await repos.submissions.create(
            {
              id: submissionId,
              status: 'waiting_for_upload',
              mediaType: 'video',
              agentId: caller.agentId,
              channelId,
              date: request.date ?? frameDateOf(createdAt),
              metadata: { ...described, filename: request.filename },
              title: described.title ?? null,
              visibility: deps.config.approval_defaults.initial_visibility,
            },
            { type: 'agent', id: caller.agentId },
          );
          await repos.mediaUploads.create({
            id: uploadId,
            submissionId,
            provider: deps.videoProvider.name,
            providerRef: session.providerRef,
            uploadUrl: session.uploadUrl,
            protocol,
            byteSize: request.byte_size,
            contentType: request.content_type,
            filename: request.filename,
            tokenHash: session.tokenHash ?? null,
            expiresAt,
          });
          const row = await repos.mediaUploads.findById(uploadId);
          const created = toMediaUpload(row!);
          await completeIdempotency(repos, input.idempotency, 201, created);
          return created;
        });
      } catch (error) {
        await deps.videoProvider.deleteVideo(session.providerRef).catch(() => undefined);
        throw error;
      }
      await enqueueAfterCommit(
        () => deps.queues.enqueue('upload.expire', { submissionId, uploadId }, { at: expiresAt }),
        { submission_id: submissionId },
      );
      // video: a remote provider is also polled (with back-off), in case a webhook never comes.
      if (deps.videoProvider.name !== 'local') {
        await enqueueAfterCommit(
          () => deps.queues.enqueue('video.process', { submissionId }, { at: new Date(createdAt.getTime() + 15_000) }),
          { submission_id: submissionId },
        );
      }
      return { status: 201, body };
    },

    /** The caller's own submission; another agent's is 404 like an unknown one. */
    async getSubmission(caller: AgentCaller, id: string): Promise<FrameSubmission> {
      if (!isId('submission', id)) throw new DomainError('not_found', `No frame submission ${id}.`);
      return resource(id, caller.agentId);
    },

    async getUpload(caller: AgentCaller, id: string): Promise<MediaUpload> {
      const row = isId('upload', id) ? await deps.db.repos.mediaUploads.findForAgent(id, caller.agentId) : null;
      if (!row) throw new DomainError('not_found', `No media upload ${id}.`);
      return toMediaUpload(row);
    },

    /** A delivered variant or poster, for the signed media URLs; null when there is none of that name. */
    async deliveredMedia(
      submissionId: string,
      name: string,
    ): Promise<{ contentType: string; byteSize: number; open(): Promise<Readable> } | null> {
      if (!isId('submission', submissionId)) return null;
      const object =
        (await deps.db.repos.mediaObjects.find(submissionId, 'variant', name)) ??
        (name === 'poster' ? await deps.db.repos.mediaObjects.find(submissionId, 'poster', name) : null);
      if (!object) return null;
      return {
        contentType: object.contentType,
        byteSize: Number(object.byteSize),
        open: () => deps.storage.get(object.bucket, object.key),
      };
    },

    /** The caller's submissions, newest first; `next_cursor` continues after the last one. */
    async listSubmissions(
      caller: AgentCaller,
      query: { channel_slug?: string; status?: SubmissionStatus; cursor?: string; limit?: number },
    ): Promise<FrameSubmissionList> {
      const limit = query.limit ?? LIST_LIMIT_DEFAULT;
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      let channelId: string | undefined;
      if (query.channel_slug) {
        const channel = await deps.db.repos.channels.findBySlug(query.channel_slug);
        if (!channel) return { data: [], has_more: false, next_cursor: null };
        channelId = channel.id;
      }
      const rows = await deps.db.repos.submissions.listResourcesForAgent({
        agentId: caller.agentId,
        limit: limit + 1,
        ...(channelId ? { channelId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const hasMore = rows.length > limit;
      return {
        data: page.map((row) => toFrameSubmission(row, deps.variantUrl)),
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor(last) : null,
      };
    },
  };
}

export type SubmissionsService = ReturnType<typeof submissionsService>;
