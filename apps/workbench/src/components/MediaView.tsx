import { type PointerEvent, useEffect, useRef, useState } from 'react';
import type { SubmissionDetail } from '../api/types';

export interface MediaViewProps {
  readonly submission: SubmissionDetail;
  /** 1:1 pixels (pan by dragging, scrolling or arrow keys) instead of fitting the space. */
  readonly zoom?: boolean;
  /** Draw the click zones over the image. */
  readonly zones?: boolean;
}

/** Width and height of an element, kept up to date. */
function useSize<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/** Drag to pan a scrolled element. */
function panHandlers() {
  let from: { x: number; y: number; left: number; top: number } | null = null;
  return {
    onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
      if ((e.target as HTMLElement).closest('a')) return;
      from = { x: e.clientX, y: e.clientY, left: e.currentTarget.scrollLeft, top: e.currentTarget.scrollTop };
    },
    onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
      if (!from) return;
      e.currentTarget.scrollLeft = from.left - (e.clientX - from.x);
      e.currentTarget.scrollTop = from.top - (e.clientY - from.y);
    },
    onPointerUp: () => (from = null),
    onPointerLeave: () => (from = null),
  };
}

/** Stream's embeddable player for an HLS address of Stream's (`…/<uid>/manifest/video.m3u8` → `…/<uid>/iframe`). */
export function streamPlayerUrl(videoUrl: string): string | null {
  const match = /^(https?:\/\/[^?#]+)\/manifest\/video\.m3u8(?:\?.*)?$/.exec(videoUrl);
  return match ? `${match[1]}/iframe` : null;
}

/** A video: its poster and a player (ours for stored originals, Stream's for Stream's HLS). */
function VideoView({ submission }: { readonly submission: SubmissionDetail }) {
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
      </div>
    );
  return (
    <div className="media">
      {url ? (
        <video
          controls
          preload="metadata"
          poster={submission.poster_url ?? undefined}
          src={url}
          aria-label={`Video: ${name}`}
        />
      ) : submission.poster_url ? (
        <img src={submission.poster_url} alt={`Poster of ${name}`} />
      ) : (
        <p>The video is not available yet.</p>
      )}
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

/**
 * The frame fitted to the space (small frames scaled up with hard pixels, the scale shown), or
 * at 1:1 to pan; click zones drawn over it as outlined boxes.
 */
export function MediaView({ submission, zoom = false, zones = true }: MediaViewProps) {
  const [stageRef, stage] = useSize<HTMLDivElement>();
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(
    submission.width && submission.height ? { width: submission.width, height: submission.height } : null,
  );
  if (submission.purged_at) return <PurgedMedia purgedAt={submission.purged_at} />;
  if (submission.media_type === 'video') return <VideoView submission={submission} />;
  const fit =
    natural && stage.width > 0 && stage.height > 0
      ? Math.min(stage.width / natural.width, stage.height / natural.height)
      : 1;
  const scale = zoom ? 1 : fit;
  const box = natural ? { width: natural.width * scale, height: natural.height * scale } : undefined;
  return (
    <div className="media">
      <p className="scale" aria-live="polite">
        {zoom ? 'Scale 100% (1:1)' : `Scale ${Math.round(scale * 100)}% (fit)`}
      </p>
      <div
        ref={stageRef}
        className={zoom ? 'stage zoomed' : 'stage'}
        tabIndex={zoom ? 0 : -1}
        aria-label={zoom ? 'Frame at 1:1; drag or use the arrow keys to pan' : undefined}
        role={zoom ? 'region' : undefined}
        {...(zoom ? panHandlers() : {})}
      >
        <div className={scale > 1 ? 'frame pixelated' : 'frame'} style={box}>
          {submission.image_url ? (
            <img
              src={submission.image_url}
              alt={submission.title ?? submission.id}
              draggable={false}
              onLoad={(e) => setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
            />
          ) : (
            <div className="frame-missing">No image variant yet</div>
          )}
          {zones &&
            submission.click_zones.map((zone, index) => (
              <a
                key={index}
                className="click-zone"
                data-testid="click-zone"
                href={zone.url}
                target="_blank"
                rel="noopener noreferrer"
                title={zone.url}
                aria-label={`${zone.label ?? `Zone ${index + 1}`}: ${zone.url}`}
                style={{
                  left: `${zone.x * 100}%`,
                  top: `${zone.y * 100}%`,
                  width: `${zone.width * 100}%`,
                  height: `${zone.height * 100}%`,
                }}
              >
                <span className="zone-label">{zone.label ?? `Zone ${index + 1}`}</span>
                <span className="zone-url">{zone.url}</span>
              </a>
            ))}
        </div>
      </div>
    </div>
  );
}
