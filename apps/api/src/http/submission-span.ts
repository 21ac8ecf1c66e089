import { annotateSpan } from '@framedesk/observability';

/**
 * Which frame a request created (or replayed), on the request's span: ids, slugs, the media type
 * and the outcome only, never the metadata body or an upload URL (it holds a token). Nothing when
 * tracing is off.
 */
export function annotateSubmission(fields: {
  readonly submissionId: string;
  readonly agentSlug: string;
  readonly channelSlug: string;
  readonly mediaType: 'image' | 'video';
  readonly outcome: string;
}): void {
  annotateSpan({
    'framedesk.submission_id': fields.submissionId,
    'framedesk.agent': fields.agentSlug,
    'framedesk.channel': fields.channelSlug,
    'framedesk.media_type': fields.mediaType,
    'framedesk.outcome': fields.outcome,
  });
}
