import type { MediaUpload, MediaUploadRequest } from '@framedesk/contracts';
import { DomainError, frameDateOf, newId } from '@framedesk/domain';
import type { Repositories } from '@framedesk/db';
import type { UploadProtocol } from '@framedesk/video-provider';
import {
  type AgentCaller,
  type Created,
  DEFAULT_UPLOAD_LIMITS,
  type IdempotencyToken,
  serviceSupport,
  type SubmissionsDependencies,
} from './service-support';
import { checkRevisionOf } from './revisions';
import { toMediaUpload } from './submission-views';

// Without media.small_video_max_bytes, one basic upload carries up to Cloudflare's 200 MB.
export const DEFAULT_SMALL_VIDEO_MAX_BYTES = 200 * 1024 * 1024;

/** Video frames: an upload session with the provider, and its submission, under the agent's quotas. */
export function videoSubmissions(deps: SubmissionsDependencies) {
  const now = deps.now ?? (() => new Date());
  const limits = deps.limits ?? DEFAULT_UPLOAD_LIMITS;
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

  return {
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
          const { revision_of, ...described } = request.metadata ?? {};
          const revisionOf = await checkRevisionOf(repos, revision_of, caller.agentId, channelId);
          await repos.submissions.create(
            {
              revisionOf,
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
  };
}
