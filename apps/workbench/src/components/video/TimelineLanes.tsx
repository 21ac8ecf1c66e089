import type { ReviewMoment, ReviewStretch, ReviewVideoMeasurement } from '@framedesk/contracts';

export const pct = (t: number, duration: number) => `${Math.min(100, Math.max(0, (t / duration) * 100))}%`;
const secs = (t: number) => `${t.toFixed(2)} s`;

const KINDS = [
  ['black', 'Black'],
  ['frozen', 'Frozen'],
  ['silent', 'Silent'],
] as const;

/** The measured stretches as buttons on the timeline, each seeking to its start. */
export function StretchLane({
  measurement,
  duration,
  seek,
}: {
  readonly measurement: ReviewVideoMeasurement;
  readonly duration: number;
  readonly seek: (t: number) => void;
}) {
  const all = KINDS.flatMap(([kind, label]) =>
    (measurement.stretches[kind] ?? []).map((s: ReviewStretch) => ({ kind, label, ...s })),
  );
  if (all.length === 0) return null;
  return (
    <div className="timeline-lane" role="group" aria-label="Measured stretches">
      {all.map((s, i) => (
        <button
          key={i}
          type="button"
          className={`stretch stretch-${s.kind}`}
          style={{ left: pct(s.start, duration), width: pct(s.end - s.start, duration) }}
          aria-label={`${s.label} ${secs(s.start)} to ${secs(s.end)}`}
          title={`${s.label} ${secs(s.start)}–${secs(s.end)}`}
          onClick={() => seek(s.start)}
        >
          <span className="stretch-text">{s.label}</span>
        </button>
      ))}
    </div>
  );
}

/**
 * One lane of time-coded items: a decision's (`decision`), the internal notes' (`note`) or, in the
 * compare view, the version a revision replaces (`previous`). `name` names the lane for assistive
 * technology; `prefix` starts each item's name ("Note: ") where the label alone would be ambiguous.
 */
export interface MomentLaneSpec {
  readonly kind: 'decision' | 'note' | 'previous';
  readonly name: string;
  readonly prefix?: string;
  readonly moments: readonly ReviewMoment[];
}

/** Time-coded items: a marker for a moment, a bar for a range, each labelled and seeking to its time. */
export function MomentLane({
  lane,
  duration,
  seek,
}: {
  readonly lane: MomentLaneSpec;
  readonly duration: number;
  readonly seek: (t: number) => void;
}) {
  if (lane.moments.length === 0) return null;
  return (
    <div className={`timeline-lane moment-lane-${lane.kind}`} role="group" aria-label={lane.name}>
      {lane.moments.map((m, i) => {
        const start = 'at' in m ? m.at : m.start;
        const range = 'at' in m ? null : m;
        return (
          <button
            key={i}
            type="button"
            className={`moment moment-${lane.kind} ${range ? 'moment-range' : 'moment-at'}`}
            data-testid="moment"
            style={{ left: pct(start, duration), ...(range ? { width: pct(range.end - range.start, duration) } : {}) }}
            aria-label={`${lane.prefix ?? ''}${m.label} at ${range ? `${secs(range.start)} to ${secs(range.end)}` : secs(start)}`}
            title={`${lane.prefix ?? ''}${m.label}`}
            onClick={() => seek(start)}
          >
            <span className="moment-text">{m.label}</span>
          </button>
        );
      })}
    </div>
  );
}
