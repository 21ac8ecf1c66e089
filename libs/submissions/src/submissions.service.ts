import type { Readable } from 'node:stream';
import type { FrameSubmission, FrameSubmissionList, MediaUpload, MediaUploadRequest } from '@framedesk/contracts';
import { LIST_LIMIT_DEFAULT } from '@framedesk/contracts';
import { DomainError, frameDateOf, isId, newId, type SubmissionStatus } from '@framedesk/domain';
import type { ByteRange } from '@framedesk/storage';
import type { UploadProtocol } from '@framedesk/video-provider';
import { decodeCursor, encodeCursor } from './cursor';
import { imageSubmissions } from './image-submissions';
import type { Repositories } from '@framedesk/db';
import {
  type AgentCaller,
  type Created,
  DEFAULT_UPLOAD_LIMITS,
  type IdempotencyToken,
  serviceSupport,
  type SubmissionsDependencies,
} from './service-support';
import { deliversPublic, LAZY_VARIANT } from './public-variant';
import { toFrameSubmission, toMediaUpload } from './submission-views';

// Without media.small_video_max_bytes, one basic upload carries up to Cloudflare's 200 MB.
export const DEFAULT_SMALL_VIDEO_MAX_BYTES = 200 * 1024 * 1024;

export function submissionsService(deps: SubmissionsDependencies) {
  const now = deps.now ?? (() => new Date());

  const limits = deps.limits ?? DEFAULT_UPLOAD_LIMITS;
  // `public` is listed from review on, before the workers make it (public-variant.ts).
  const madeOnPromotion = deliversPublic(deps.config) ? [LAZY_VARIANT] : [];
  const { enqueueAfterCommit, authorize, completeIdempotency } = serviceSupport(deps);

  /** 429 quota_exceeded when one more session of `byteSize` would pass the agent's quotas. */
  async function checkUploadQuota(repos: Repositories, caller: AgentCaller, byteSize: number, lock: boolean) {
    const open = await repos.mediaUploads.openForAgent(caller.agentId, now(), { lock });
    const retry = { headers: { 'Retry-After': '60' } };
    if (open.sessions + 1 > limits.openUploadsPerAgent) {
      throw new DomainError(
        'quota_exceeded',
        `Agent "${caller.agentSlug}" already has ${open.sessions} open upload sessions (at most ${limits.openUploadsPerAgent}); finish or let some expire first.`,
        retry,
      );
    }
    if (open.bytes + byteSize > limits.openUploadBytesPerAgent) {
      throw new DomainError(
        'quota_exceeded',
        `Agent "${caller.agentSlug}" has ${open.bytes} bytes in unfinished uploads; ${byteSize} more would pass its ${limits.openUploadBytesPerAgent}-byte quota.`,
        retry,
      );
    }
  }

  async function resource(id: string, agentId: string): Promise<FrameSubmission> {
    const row = await deps.db.repos.submissions.findResourceForAgent(id, agentId);
    if (!row) throw new DomainError('not_found', `No frame submission ${id}.`);
    return toFrameSubmission(row, deps.variantUrl, madeOnPromotion);
  }

  return {
    ...imageSubmissions(deps),

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
      if (request.byte_size > limits.videoMaxBytes) {
        throw new DomainError(
          'payload_too_large',
          `byte_size ${request.byte_size} is above this installation's largest video, ${limits.videoMaxBytes} bytes.`,
        );
      }
      const channelId = await authorize(deps.db.repos, caller, request.agent_slug, request.channel_slug);
      // Checked before the provider opens anything, and again under the agent's lock below.
      await checkUploadQuota(deps.db.repos, caller, request.byte_size, false);
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
          await checkUploadQuota(repos, caller, request.byte_size, true);
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
        () =>
          deps.queues.enqueue(
            'upload.expire',
            { submissionId, uploadId },
            { at: expiresAt, origin: { requestId: caller.requestId } },
          ),
        { submission_id: submissionId },
      );
      // video: a remote provider is also polled (with back-off), in case a webhook never comes.
      if (deps.videoProvider.name !== 'local') {
        await enqueueAfterCommit(
          () =>
            deps.queues.enqueue(
              'video.process',
              { submissionId },
              { at: new Date(createdAt.getTime() + 15_000), origin: { requestId: caller.requestId } },
            ),
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
    ): Promise<{ contentType: string; byteSize: number; open(range?: ByteRange): Promise<Readable> } | null> {
      if (!isId('submission', submissionId)) return null;
      const object =
        (await deps.db.repos.mediaObjects.findServed(submissionId, 'variant', name)) ??
        (name === 'poster' ? await deps.db.repos.mediaObjects.findServed(submissionId, 'poster', name) : null);
      if (!object) return null;
      return {
        contentType: object.contentType,
        byteSize: Number(object.byteSize),
        open: (range) => deps.storage.get(object.bucket, object.key, range ? { range } : undefined),
      };
    },

    /** The caller's submissions, newest first; `next_cursor` continues after the last one. */
    async listSubmissions(
      caller: AgentCaller,
      query: { channel_slug?: string; status?: SubmissionStatus; cursor?: string; limit?: number },
      /** At most this many bytes of JSON in `data` (at least one row): the page ends early beyond. */
      maxBytes = Infinity,
    ): Promise<FrameSubmissionList> {
      const limit = query.limit ?? LIST_LIMIT_DEFAULT;
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      const rows = await deps.db.repos.submissions.listResourcesForAgent({
        agentId: caller.agentId,
        limit: limit + 1,
        ...(query.channel_slug ? { channelSlug: query.channel_slug } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(after ? { after } : {}),
      });
      const data: FrameSubmission[] = [];
      let bytes = 0;
      for (const row of rows.slice(0, limit)) {
        const item = toFrameSubmission(row, deps.variantUrl, madeOnPromotion);
        bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
        if (data.length > 0 && bytes > maxBytes) break;
        data.push(item);
      }
      const last = rows[data.length - 1];
      const hasMore = rows.length > data.length;
      return { data, has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last) : null };
    },
  };
}

export type SubmissionsService = ReturnType<typeof submissionsService>;
