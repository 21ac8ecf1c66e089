import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ReviewMoment } from '@framedesk/contracts';
import { api, ApiError } from '../api/client';
import {
  DEFAULT_REJECT_REASONS,
  type DecisionInput,
  type QueueItem,
  type Region,
  type SubmissionDetail,
  type Visibility,
} from '../api/types';
import { Badge, Skeleton } from '../ui';
import { Filmstrip } from './Filmstrip';
import { formatDuration } from './MediaView';
import { RelativeTime } from './QueueMeta';
import type { ClaimState } from '../hooks/useClaim';
import { DecisionBar } from './DecisionBar';
import { EventHistory } from './EventHistory';
import { InternalNotes } from './InternalNotes';
import { RegionList } from './Regions';
import { promotedRevision, VersionStack } from './VersionStack';
import { MediaView } from './MediaView';
import { MomentForm } from './video/MomentForm';
import { frameRateOf } from './video/timecode';
import { SimilarFrames, withoutDuplicateOf } from './SimilarFrames';
import { WhyHere } from './WhyHere';

export interface SubmissionDetailViewProps {
  readonly id: string;
  readonly claim: ClaimState;
  readonly reasons?: readonly string[];
  readonly rejecting: boolean;
  readonly onRejecting: (open: boolean) => void;
  readonly onDecide: (submission: SubmissionDetail, decision: DecisionInput) => void;
  /** Whether the click zones are drawn (`c`). */
  readonly zones?: boolean;
  readonly onZones?: (on: boolean) => void;
  /** The frames around this one in the queue, for the filmstrip. */
  readonly neighbours?: readonly QueueItem[];
  readonly onOpen?: (id: string) => void;
}

function formatDate(date: string): string {
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;
}

/** A metadata row: long values are cut with an ellipsis and shown whole on hover. */
function Meta({ term, value }: { readonly term: string; readonly value: string }) {
  return (
    <>
      <dt>{term}</dt>
      <dd title={value}>{value}</dd>
    </>
  );
}

/** One frame: media with click zones, metadata, claim, decisions and history. */
export function SubmissionDetailView({
  id,
  claim,
  reasons,
  rejecting,
  onRejecting,
  onDecide,
  zones = true,
  onZones,
  neighbours = [],
  onOpen,
}: SubmissionDetailViewProps) {
  const client = useQueryClient();
  // The boxes drawn for this frame's rejection; a new frame starts with none.
  const [regions, setRegions] = useState<Region[]>([]);
  // A video's time-coded items for its rejection, and the player's time for "mark in/out".
  const [moments, setMoments] = useState<ReviewMoment[]>([]);
  const [time, setTime] = useState(0);
  useEffect(() => {
    setRegions([]);
    setMoments([]);
  }, [id]);
  const detail = useQuery({ queryKey: ['submission', id], queryFn: () => api.submission(id), refetchInterval: 15_000 });
  const visibility = useMutation({
    mutationFn: (value: Visibility) => api.setVisibility(id, value),
    onSuccess: (updated) => client.setQueryData(['submission', id], updated),
  });
  if (detail.isPending)
    return (
      <section className="detail">
        <Skeleton lines={8} />
      </section>
    );
  if (detail.isError)
    return (
      <section className="detail" role="alert">
        {detail.error instanceof ApiError ? detail.error.detail : 'Could not load this frame.'}
      </section>
    );
  const s = detail.data;
  const open = s.status === 'needs_review';
  const editable = open && s.media_type === 'image' && !s.purged_at;
  // A video on screen takes items pinned to a moment: the rejection's while it waits, a note's always.
  const videoShown = s.media_type === 'video' && !s.purged_at && !!s.video_url;
  const videoEditable = open && videoShown;
  const revised = promotedRevision(s);
  return (
    <section className="detail" aria-label={`Frame ${s.title ?? s.id}`}>
      <header className="detail-head">
        <h2>{s.title ?? s.id}</h2>
        <Badge tone={open ? 'accent' : s.status === 'promoted' ? 'success' : 'danger'}>
          {s.status.replace('_', ' ')}
        </Badge>
      </header>
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
      {revised && (
        <p className="notice" role="status">
          {`A later revision, ${revised.title ?? revised.id}, was promoted.`}
        </p>
      )}
      <div className="detail-body">
        <MediaView
          submission={s}
          zones={zones}
          {...(onZones ? { onZones } : {})}
          {...(editable || videoShown
            ? // One box per time-coded item: the last one drawn.
              { regions, onRegions: editable ? setRegions : (r: Region[]) => setRegions(r.slice(-1)) }
            : { regions: s.review?.regions ?? [] })}
          {...(videoShown ? { onTime: setTime } : {})}
        />
        <div className="detail-side">
          {editable && <RegionList regions={regions} onChange={setRegions} />}
          {videoEditable && (
            <MomentForm
              time={time}
              region={regions[0] ?? null}
              onClearRegion={() => setRegions([])}
              moments={moments}
              onChange={setMoments}
              fps={frameRateOf(s.measurement)}
            />
          )}
          <WhyHere submission={s} />
          <SimilarFrames submission={s} {...(open ? { onDecide: (d: DecisionInput) => onDecide(s, d) } : {})} />
          {s.caption && <p className="caption">{s.caption}</p>}
          <dl className="meta">
            <Meta term="Agent" value={s.agent_slug} />
            <Meta term="Channel" value={s.channel_slug} />
            <Meta term="Frame date" value={formatDate(s.date)} />
            <dt>Received</dt>
            <dd>
              <RelativeTime iso={s.created_at} />
            </dd>
            <Meta term="Visibility" value={s.visibility.replaceAll('_', ' ')} />
            <Meta
              term="Media"
              value={[
                s.media_type,
                s.width && s.height ? `${s.width}×${s.height}` : null,
                s.duration_ms ? formatDuration(s.duration_ms) : null,
              ]
                .filter(Boolean)
                .join(' · ')}
            />
            <Meta term="Id" value={s.id} />
            {s.external_ref && <Meta term="Reference" value={s.external_ref} />}
          </dl>
        </div>
      </div>
      {open && (
        <DecisionBar
          visibility={s.visibility}
          reasons={withoutDuplicateOf(s.reject_reasons ?? reasons ?? DEFAULT_REJECT_REASONS)}
          rejecting={rejecting}
          onRejecting={onRejecting}
          regions={videoEditable ? [] : regions}
          moments={moments}
          onDecide={(decision) => onDecide(s, decision)}
          onVisibility={(v) => visibility.mutate(v)}
        />
      )}
      {visibility.error && (
        <p role="alert">
          {visibility.error instanceof ApiError ? visibility.error.detail : 'Could not change the visibility.'}
        </p>
      )}
      {onOpen && neighbours.length > 1 && <Filmstrip items={neighbours} currentId={s.id} onOpen={onOpen} />}
      <VersionStack submission={s} />
      <InternalNotes
        submission={s}
        video={videoShown ? { time, region: regions[0] ?? null, onClearRegion: () => setRegions([]) } : undefined}
      />
      <EventHistory events={s.events} image={s.image_url ?? s.thumbnail_url} />
    </section>
  );
}
