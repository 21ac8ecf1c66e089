import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { DEFAULT_REJECT_REASONS, type DecisionInput, type SubmissionDetail, type Visibility } from '../api/types';
import type { ClaimState } from '../hooks/useClaim';
import { DecisionBar } from './DecisionBar';
import { EventHistory } from './EventHistory';
import { MediaView } from './MediaView';
import { SimilarFrames, withoutDuplicateOf } from './SimilarFrames';

export interface SubmissionDetailViewProps {
  readonly id: string;
  readonly claim: ClaimState;
  readonly reasons?: readonly string[];
  readonly rejecting: boolean;
  readonly onRejecting: (open: boolean) => void;
  readonly onDecide: (submission: SubmissionDetail, decision: DecisionInput) => void;
  /** How the frame is shown (`z` and `c`). */
  readonly zoom?: boolean;
  readonly zones?: boolean;
}

function formatDate(date: string): string {
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;
}

/** One frame: media with click zones, metadata, claim, decisions and history. */
export function SubmissionDetailView({
  id,
  claim,
  reasons,
  rejecting,
  onRejecting,
  onDecide,
  zoom = false,
  zones = true,
}: SubmissionDetailViewProps) {
  const client = useQueryClient();
  const detail = useQuery({ queryKey: ['submission', id], queryFn: () => api.submission(id), refetchInterval: 15_000 });
  const visibility = useMutation({
    mutationFn: (value: Visibility) => api.setVisibility(id, value),
    onSuccess: (updated) => client.setQueryData(['submission', id], updated),
  });
  if (detail.isPending) return <section className="detail">Loading…</section>;
  if (detail.isError)
    return (
      <section className="detail" role="alert">
        {detail.error instanceof ApiError ? detail.error.detail : 'Could not load this frame.'}
      </section>
    );
  const s = detail.data;
  const open = s.status === 'needs_review';
  return (
    <section className="detail" aria-label={`Frame ${s.title ?? s.id}`}>
      <h2>{s.title ?? s.id}</h2>
      {claim.state === 'other' ? (
        <p className="notice" role="status">
          {claim.message}
        </p>
      ) : (
        open &&
        s.claim &&
        !s.claim.mine && (
          <p className="notice" role="status">
            {`${s.claim.reviewer_email ?? 'Another reviewer'} is reviewing this frame.`}
          </p>
        )
      )}
      {!open && (
        <p className="notice" role="status">
          This frame is {s.status.replace('_', ' ')}
          {s.review?.reason ? ` (${s.review.reason})` : ''}.
        </p>
      )}
      <div className="detail-body">
        <MediaView submission={s} zoom={zoom} zones={zones} />
        <div className="detail-side">
          <SimilarFrames submission={s} {...(open ? { onDecide: (d: DecisionInput) => onDecide(s, d) } : {})} />
          {s.caption && <p className="caption">{s.caption}</p>}
          <dl className="meta">
            <dt>Agent</dt>
            <dd>{s.agent_slug}</dd>
            <dt>Channel</dt>
            <dd>{s.channel_slug}</dd>
            <dt>Date</dt>
            <dd>{formatDate(s.date)}</dd>
            <dt>Visibility</dt>
            <dd>{s.visibility}</dd>
            <dt>Media</dt>
            <dd>
              {s.media_type}
              {s.width && s.height ? ` · ${s.width}×${s.height}` : ''}
              {s.duration_ms ? ` · ${Math.round(s.duration_ms / 1000)} s` : ''}
            </dd>
          </dl>
        </div>
      </div>
      {open && (
        <DecisionBar
          visibility={s.visibility}
          reasons={withoutDuplicateOf(reasons ?? DEFAULT_REJECT_REASONS)}
          rejecting={rejecting}
          onRejecting={onRejecting}
          onDecide={(decision) => onDecide(s, decision)}
          onVisibility={(v) => visibility.mutate(v)}
        />
      )}
      {visibility.error && (
        <p role="alert">
          {visibility.error instanceof ApiError ? visibility.error.detail : 'Could not change the visibility.'}
        </p>
      )}
      <EventHistory events={s.events} />
    </section>
  );
}
