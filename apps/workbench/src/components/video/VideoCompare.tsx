import { useMemo } from 'react';
import type { ReviewMoment, ReviewVideoMeasurement } from '@framedesk/contracts';
import { createPlayerLink } from './player-link';
import { frameRateOf } from './timecode';
import type { MomentLaneSpec } from './TimelineLanes';
import VideoPlayer from './VideoPlayer';

/** One video of the compare view. */
export interface CompareVideo {
  readonly src: string;
  readonly name: string;
  readonly poster?: string | null;
  readonly durationMs?: number | null;
  readonly caption: string;
}

export interface VideoCompareProps {
  readonly current: CompareVideo & {
    readonly sprite?: string | undefined;
    readonly spriteVtt?: string | undefined;
    readonly measurement?: ReviewVideoMeasurement | null | undefined;
  };
  /** The version the revision replaces, and the time-coded items of its rejection. */
  readonly previous: CompareVideo & { readonly moments: readonly ReviewMoment[] };
}

/**
 * A video revision beside the version it replaces, in step: seeking, playing, pausing or stepping a
 * frame in either does the same in the other. One timeline (the revision's) carries the earlier
 * version's time-coded items, each a click away, so the reviewer checks each spot in both at once.
 */
export default function VideoCompare({ current, previous }: VideoCompareProps) {
  const link = useMemo(createPlayerLink, []);
  const lanes: MomentLaneSpec[] = [
    {
      kind: 'previous',
      name: "The previous version's time-coded items",
      prefix: 'Previous version: ',
      moments: previous.moments,
    },
  ];
  return (
    <div className="video-compare" role="group" aria-label="Videos in step">
      <figure>
        <VideoPlayer
          src={current.src}
          name={current.name}
          poster={current.poster}
          durationMs={current.durationMs}
          sprite={current.sprite}
          spriteVtt={current.spriteVtt}
          measurement={current.measurement}
          lanes={lanes}
          link={link}
        />
        <figcaption>{current.caption}</figcaption>
      </figure>
      <figure>
        <VideoPlayer
          src={previous.src}
          name={previous.name}
          poster={previous.poster}
          durationMs={previous.durationMs}
          // Stepped with the revision on its timeline: the same frames, the same time shown.
          frameRate={frameRateOf(current.measurement)}
          link={link}
          timeline={false}
        />
        <figcaption>{previous.caption}</figcaption>
      </figure>
    </div>
  );
}
