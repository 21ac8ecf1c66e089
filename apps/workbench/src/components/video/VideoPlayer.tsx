import { type KeyboardEvent, type PointerEvent, useEffect, useRef, useState } from 'react';
import type { ReviewVideoMeasurement } from '@framedesk/contracts';
import type { Region } from '../../api/types';
import { RegionBoxes, RegionEditor } from '../Regions';
import { isTyping, PLAYER_KEYS } from './player-keys';
import type { PlayerLink } from './player-link';
import { usePlayerControls } from './use-player-controls';
import { cueAt, parseSpriteVtt, type SpriteCue } from './sprite-vtt';
import { formatTimecode, frameRateOf } from './timecode';
import { MomentLane, type MomentLaneSpec, pct, StretchLane } from './TimelineLanes';
import './video.css';

export interface VideoPlayerProps {
  readonly src: string;
  readonly name: string;
  readonly poster?: string | null;
  /** Seconds, from the API, until the video's metadata says. */
  readonly durationMs?: number | null;
  /** Signed URLs of the thumbnail sprite and its WebVTT track, when the worker made them. */
  readonly sprite?: string | undefined;
  readonly spriteVtt?: string | undefined;
  readonly measurement?: ReviewVideoMeasurement | null | undefined;
  /** Frames per second to step and show time by; default the measurement's (frameRateOf). */
  readonly frameRate?: number | undefined;
  /** Time-coded items drawn under the timeline, a lane each (the decision's, the notes', …). */
  readonly lanes?: readonly MomentLaneSpec[] | undefined;
  /** Players in step with this one (the compare view): what one does, the others do. */
  readonly link?: PlayerLink | undefined;
  /** Without its own timeline: a linked player whose timeline is another's (default true). */
  readonly timeline?: boolean;
  /** Told the current time as it changes (the reject form's "mark in/out"). */
  readonly onTime?: (time: number) => void;
  /** Boxes on the current frame: editable with `onRegions` (a rejection's item), else read only. */
  readonly regions?: readonly Region[] | undefined;
  readonly onRegions?: ((regions: Region[]) => void) | undefined;
}

/** The sprite's cues, fetched and parsed once per track. */
function useSpriteCues(vtt: string | undefined): SpriteCue[] {
  const [cues, setCues] = useState<SpriteCue[]>([]);
  useEffect(() => {
    if (!vtt) return;
    let live = true;
    fetch(vtt, { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.text() : ''))
      .then((text) => live && setCues(parseSpriteVtt(text)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [vtt]);
  return cues;
}

/**
 * Our player for a stored video: a timeline that shows the sprite's frame under the pointer, J/K/L
 * and ,/. while it has focus, the time to the frame, the measured stretches and the time-coded items.
 */
export default function VideoPlayer(props: VideoPlayerProps) {
  const video = useRef<HTMLVideoElement>(null);
  const track = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState((props.durationMs ?? 0) / 1000);
  const [playing, setPlaying] = useState(false);
  const [hover, setHover] = useState<number | null>(null);
  const [drawing, setDrawing] = useState(false);
  const cues = useSpriteCues(props.sprite ? props.spriteVtt : undefined);
  const { onTime } = props;
  useEffect(() => onTime?.(time), [time, onTime]);

  const controls = usePlayerControls(video, setTime, props.link);
  const fps = props.frameRate ?? frameRateOf(props.measurement);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    const action = PLAYER_KEYS[e.key.toLowerCase()];
    if (!action) return;
    // The queue's own j/k (next/previous frame) wait while the player has focus.
    e.preventDefault();
    e.stopPropagation();
    action(controls, fps);
  };

  const timeAt = (e: PointerEvent) => {
    const box = track.current!.getBoundingClientRect();
    return Math.min(1, Math.max(0, (e.clientX - box.left) / (box.width || 1))) * (duration || 0);
  };
  const span = duration > 0 ? duration : 1;
  const cue = hover === null ? null : cueAt(cues, hover);
  return (
    <div className="video-player" tabIndex={-1} onKeyDown={onKeyDown}>
      <div className="video-frame">
        <video
          ref={video}
          preload="metadata"
          poster={props.poster ?? undefined}
          src={props.src}
          aria-label={`Video: ${props.name}`}
          onClick={() => (controls.playing() ? controls.pause() : controls.play(1))}
          onTimeUpdate={(e) => setTime(e.currentTarget.currentTime)}
          onSeeked={(e) => setTime(e.currentTarget.currentTime)}
          onLoadedMetadata={(e) => Number.isFinite(e.currentTarget.duration) && setDuration(e.currentTarget.duration)}
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
        />
        {props.onRegions ? (
          <RegionEditor regions={props.regions ?? []} onChange={props.onRegions} drawing={drawing} />
        ) : (
          props.regions && props.regions.length > 0 && <RegionBoxes regions={props.regions} />
        )}
      </div>
      <div className="player-bar">
        <button
          type="button"
          className="player-play"
          onClick={() => (playing ? controls.pause() : controls.play(1))}
          aria-label={playing ? 'Pause (K)' : 'Play (L)'}
        >
          {playing ? '❚❚' : '▶'}
        </button>
        <output className="player-time" aria-label="Current time" data-testid="player-time">
          {formatTimecode(time, fps)}
        </output>
        <span className="player-duration">/ {formatTimecode(duration, fps)}</span>
        {props.onRegions && (
          <button
            type="button"
            className="player-draw"
            aria-pressed={drawing}
            onClick={() => {
              controls.pause();
              setDrawing(!drawing);
            }}
          >
            {drawing ? 'Done drawing' : 'Draw a region on this frame'}
          </button>
        )}
      </div>
      {props.timeline !== false && (
        <div className="timeline">
          <div
            ref={track}
            className="timeline-track"
            role="slider"
            tabIndex={0}
            aria-label="Timeline (J/K/L, comma and period step a frame)"
            aria-valuemin={0}
            aria-valuemax={Math.round(span * 1000) / 1000}
            aria-valuenow={Math.round(time * 1000) / 1000}
            aria-valuetext={formatTimecode(time, fps)}
            onPointerDown={(e) => {
              dragging.current = true;
              e.currentTarget.setPointerCapture?.(e.pointerId);
              controls.seek(timeAt(e));
            }}
            onPointerMove={(e) => {
              const t = timeAt(e);
              setHover(t);
              if (dragging.current) controls.seek(t);
            }}
            onPointerUp={() => (dragging.current = false)}
            onPointerLeave={() => !dragging.current && setHover(null)}
          >
            <div className="timeline-played" style={{ width: pct(time, span) }} />
            {hover !== null && (
              <div className="timeline-preview" style={{ left: pct(hover, span) }} data-testid="sprite-preview-box">
                {cue && props.sprite && (
                  <div
                    className="sprite-frame"
                    data-testid="sprite-preview"
                    style={{
                      width: cue.w,
                      height: cue.h,
                      backgroundImage: `url("${props.sprite}")`,
                      backgroundPosition: `${-cue.x}px ${-cue.y}px`,
                    }}
                  />
                )}
                <span className="timeline-preview-time">{formatTimecode(hover, fps)}</span>
              </div>
            )}
          </div>
          {props.measurement && <StretchLane measurement={props.measurement} duration={span} seek={controls.seek} />}
          {props.lanes?.map((lane) => (
            <MomentLane key={lane.kind} lane={lane} duration={span} seek={controls.seek} />
          ))}
        </div>
      )}
    </div>
  );
}
