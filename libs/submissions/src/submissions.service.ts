import type { Readable } from 'node:stream';
import type { FrameSubmission, FrameSubmissionList, MediaUpload } from '@framedesk/contracts';
import { LIST_LIMIT_DEFAULT } from '@framedesk/contracts';
import { DomainError, isId, type SubmissionStatus } from '@framedesk/domain';
import type { ByteRange } from '@framedesk/storage';
import { decodeCursor, encodeCursor } from './cursor';
import { imageSubmissions } from './image-submissions';
import { videoSubmissions } from './video-submissions';
import { type AgentCaller, type SubmissionsDependencies } from './service-support';
import { deliversPublic, LAZY_VARIANT } from './public-variant';
import { toFrameSubmission, toMediaUpload } from './submission-views';

/** The agent API's submissions: image frames, video upload sessions, and the agent's reads. */
export function submissionsService(deps: SubmissionsDependencies) {
  // `public` is listed from review on, before the workers make it (public-variant.ts).
  const madeOnPromotion = deliversPublic(deps.config) ? [LAZY_VARIANT] : [];

  async function resource(id: string, agentId: string): Promise<FrameSubmission> {
    const row = await deps.db.repos.submissions.findResourceForAgent(id, agentId);
    if (!row) throw new DomainError('not_found', `No frame submission ${id}.`);
    return toFrameSubmission(row, deps.variantUrl, madeOnPromotion);
  }

  return {
    ...imageSubmissions(deps),

    ...videoSubmissions(deps),

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
