import { useState } from 'react';
import type { ReviewMoment } from '@framedesk/contracts';
import type { Region } from '../../api/types';
import { Button, TextField } from '../../ui';
import { DEFAULT_FPS, formatTimecode, roundTime } from './timecode';

export interface MomentFormProps {
  /** The player's current time, in seconds. */
  readonly time: number;
  /** The box drawn on the frame for the next item, if any. */
  readonly region: Region | null;
  readonly onClearRegion: () => void;
  readonly moments: readonly ReviewMoment[];
  readonly onChange: (moments: ReviewMoment[]) => void;
  /** The form's heading and name: the rejection's items by default, or an internal note's. */
  readonly title?: string;
  /** The video's frame rate, for the items' times (frameRateOf). */
  readonly fps?: number;
}

/** At most this many items per rejection (the API's cap, docs/video.md). */
export const MAX_MOMENTS = 20;

const parseTime = (text: string): number | null => {
  const n = Number(text.trim());
  return text.trim() === '' || !Number.isFinite(n) || n < 0 ? null : roundTime(n);
};

/** The item the form describes: a moment (`at`) without an end, else a range; null when incomplete. */
export function draftMoment(start: string, end: string, label: string, region: Region | null): ReviewMoment | null {
  const from = parseTime(start);
  const to = parseTime(end);
  if (from === null || !label.trim() || (to !== null && to < from)) return null;
  const box = region ? { x: region.x, y: region.y, width: region.width, height: region.height } : null;
  const base = to === null || to === from ? { at: from } : { start: from, end: to };
  return { ...base, label: label.trim(), ...(box ? { region: box } : {}) };
}

/** "00:01.05–00:02.13 Logo flickers (region)": an item as one line. */
export const describeMoment = (m: ReviewMoment, fps = DEFAULT_FPS) =>
  `${'at' in m ? formatTimecode(m.at, fps) : `${formatTimecode(m.start, fps)}–${formatTimecode(m.end, fps)}`} ${m.label}${m.region ? ' (region)' : ''}`;

/**
 * Time-coded items for a video's rejection: mark in / mark out from the player (or type the
 * seconds), optionally a box drawn on the frame, and a label; each added item is sent as `moments`.
 */
export function MomentForm({
  time,
  region,
  onClearRegion,
  moments,
  onChange,
  title = 'Time-coded items',
  fps = DEFAULT_FPS,
}: MomentFormProps) {
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [label, setLabel] = useState('');
  const draft = draftMoment(start, end, label, region);
  const full = moments.length >= MAX_MOMENTS;
  return (
    <section className="moment-form" aria-label={title}>
      <h3>{title}</h3>
      <div className="moment-marks">
        <Button size="sm" onPress={() => setStart(String(roundTime(time)))}>
          Mark in
        </Button>
        <TextField label="Start (seconds)" value={start} onChange={setStart} />
        <Button size="sm" onPress={() => setEnd(String(roundTime(time)))}>
          Mark out
        </Button>
        <TextField label="End (seconds, optional)" value={end} onChange={setEnd} />
      </div>
      <TextField label="Label of the item" value={label} onChange={setLabel} maxLength={200} />
      <p className="hint">{region ? 'With the region drawn on the frame.' : 'Optional: draw a region on the frame.'}</p>
      <Button
        size="sm"
        isDisabled={!draft || full}
        onPress={() => {
          if (!draft) return;
          onChange([...moments, draft]);
          setStart('');
          setEnd('');
          setLabel('');
          onClearRegion();
        }}
      >
        Add item
      </Button>
      {moments.length > 0 && (
        <ol className="moment-list">
          {moments.map((m, i) => (
            <li key={i}>
              {describeMoment(m, fps)}{' '}
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Remove item ${i + 1}`}
                onPress={() => onChange(moments.filter((_, j) => j !== i))}
              >
                Remove
              </Button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
