import { lazy, Suspense } from 'react';
import type { Region, SubmissionDetail } from '../api/types';
import { ImageViewer } from './ImageViewer';

/** Our video player loads on demand: the queue's first load stays within its budget (docs/workbench.md). */
const VideoPlayer = lazy(() => import('./video/players').then((m) => ({ default: m.VideoPlayer })));

export interface MediaViewProps {
  readonly submission: SubmissionDetail;
  /** Draw the click zones over the image. */
  readonly zones?: boolean;
  readonly onZones?: (on: boolean) => void;
  /** Regions over an image: editable with `onRegions`, else drawn read only. */
  readonly regions?: readonly Region[];
  readonly onRegions?: (regions: Region[]) => void;
  /** A video's current time as it plays or is scrubbed (the reject form's "mark in/out"). */
  readonly onTime?: (time: number) => void;
}

/** Stream's embeddable player for an HLS address of Stream's (`…/<uid>/manifest/video.m3u8` → `…/<uid>/iframe`). */
export function streamPlayerUrl(videoUrl: string): string | null {
  const match = /^(https?:\/\/[^?#]+)\/manifest\/video\.m3u8(?:\?.*)?$/.exec(videoUrl);
  return match ? `${match[1]}/iframe` : null;
}

/** A video: its poster and a player (ours for stored originals, Stream's for Stream's HLS). */
/** Duration and dimensions of a video, as one quiet line. */
function VideoFacts({ submission }: { readonly submission: SubmissionDetail }) {
  const facts = [
    'Video',
    submission.duration_ms ? formatDuration(submission.duration_ms) : null,
    submission.width && submission.height ? `${submission.width}×${submission.height}` : null,
  ].filter(Boolean);
  return <p className="hint video-facts">{facts.join(' · ')}</p>;
}

/** "0:07", "12:03": a video's length. */
export function formatDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** The time-coded items drawn on a video's timeline: its decision's, then its internal notes'. */
function momentLanes(submission: SubmissionDetail) {
  return [
    { kind: 'decision', name: 'Time-coded feedback', moments: submission.review?.moments ?? [] },
    {
      kind: 'note',
      name: "Internal notes' time-coded items",
      prefix: 'Note: ',
      moments: submission.internal_notes.flatMap((n) => n.moments ?? []),
    },
  ] as const;
}

function VideoView({
  submission,
  onTime,
  regions,
  onRegions,
}: {
  readonly submission: SubmissionDetail;
  readonly onTime?: ((time: number) => void) | undefined;
  readonly regions?: readonly Region[] | undefined;
  readonly onRegions?: ((regions: Region[]) => void) | undefined;
}) {
  const name = submission.title ?? submission.id;
  const url = submission.video_url;
  const player = url ? streamPlayerUrl(url) : null;
  if (player)
    return (
      <div className="media">
        {submission.poster_url && <img className="poster" src={submission.poster_url} alt={`Poster of ${name}`} />}
        <iframe
          className="player"
          src={player}
          title={`Player: ${name}`}
          allow="accelerometer; gyroscope; autoplay; encrypted-media; picture-in-picture; fullscreen"
          allowFullScreen
        />
        <VideoFacts submission={submission} />
      </div>
    );
  return (
    <div className="media">
      {url ? (
        <Suspense fallback={<p className="hint">Loading the player…</p>}>
          <VideoPlayer
            src={url}
            name={name}
            poster={submission.poster_url}
            durationMs={submission.duration_ms}
            sprite={submission.variants['sprite']}
            spriteVtt={submission.variants['sprite_vtt']}
            measurement={submission.measurement}
            lanes={momentLanes(submission)}
            {...(onTime ? { onTime } : {})}
            regions={regions}
            onRegions={onRegions}
          />
        </Suspense>
      ) : submission.poster_url ? (
        <img src={submission.poster_url} alt={`Poster of ${name}`} />
      ) : (
        <p>The video is not available yet.</p>
      )}
      <VideoFacts submission={submission} />
    </div>
  );
}

/** Retention or an erasure deleted the media: said so, instead of a broken image or player. */
function PurgedMedia({ purgedAt }: { readonly purgedAt: string }) {
  return (
    <div className="media">
      <p className="frame-missing" role="status">
        Media purged on {purgedAt.slice(0, 10)}
      </p>
    </div>
  );
}

/** The frame (zoom, pan, click zones) or the video, or word that the media were purged. */
export function MediaView({ submission, zones = true, onZones, regions, onRegions, onTime }: MediaViewProps) {
  if (submission.purged_at) return <PurgedMedia purgedAt={submission.purged_at} />;
  if (submission.media_type === 'video')
    return <VideoView submission={submission} onTime={onTime} regions={regions} onRegions={onRegions} />;
  return (
    <ImageViewer
      submission={submission}
      zones={zones}
      {...(onZones ? { onZones } : {})}
      {...(regions ? { regions } : {})}
      {...(onRegions ? { onRegions } : {})}
    />
  );
}
