import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DUPLICATE_OF_EARLIER_FRAME } from '@framedesk/contracts';
import { api } from '../api/client';
import type { DecisionInput, Region, SubmissionDetail } from '../api/types';
import { Button, Toggle } from '../ui';
import { RegionFigure } from './Regions';
import './similar.css';

type SimilarFrame = SubmissionDetail['similar'][number];

export interface SimilarFramesProps {
  readonly submission: SubmissionDetail;
  /** Present while the frame can still be decided. */
  readonly onDecide?: (decision: DecisionInput) => void;
}

/** The reject decision that names the earlier frame this one duplicates. */
export function duplicateOf(frame: Pick<SimilarFrame, 'id'>): DecisionInput {
  return { decision: 'reject', reason: DUPLICATE_OF_EARLIER_FRAME, duplicate_of: frame.id };
}

/** The reasons of the reject form: "Duplicate of an earlier frame" is chosen here, per frame. */
export function withoutDuplicateOf(reasons: readonly string[]): readonly string[] {
  return reasons.filter((r) => r !== DUPLICATE_OF_EARLIER_FRAME);
}

export const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** One side of a comparison: an image, what it is, and the regions drawn on it. */
export interface CompareSide {
  readonly src: string | null;
  readonly alt: string;
  readonly caption: string;
  readonly regions?: readonly Region[];
}

/** Two frames side by side at the same size (near-duplicates, and a revision beside its earlier version). */
export function SideBySide({ left, right }: { readonly left: CompareSide; readonly right: CompareSide }) {
  return (
    <div className="similar-compare" role="group" aria-label="Side-by-side comparison">
      {[left, right].map((side) => (
        <figure key={side.alt}>
          {side.regions?.length ? (
            <RegionFigure src={side.src} alt={side.alt} regions={side.regions} />
          ) : side.src ? (
            <img src={side.src} alt={side.alt} />
          ) : (
            <span className="thumb-placeholder" />
          )}
          <figcaption>{side.caption}</figcaption>
        </figure>
      ))}
    </div>
  );
}

/** This frame beside an earlier one, at the same size. */
function Compare({ submission, other }: { readonly submission: SubmissionDetail; readonly other: SimilarFrame }) {
  const earlier = useQuery({ queryKey: ['submission', other.id], queryFn: () => api.submission(other.id) });
  const src = (s: Pick<SubmissionDetail, 'image_url' | 'poster_url' | 'thumbnail_url'>) =>
    s.image_url ?? s.poster_url ?? s.thumbnail_url;
  return (
    <SideBySide
      left={{ src: src(submission), alt: 'This frame', caption: 'This frame' }}
      right={{
        src: earlier.data ? src(earlier.data) : other.thumbnail_url,
        alt: `Earlier frame ${other.title ?? other.id}`,
        caption: `${other.title ?? other.id} · ${other.status.replace('_', ' ')} · ${when(other.created_at)}`,
      }}
    />
  );
}

/**
 * Earlier frames of the channel that look like this one (closest first), each with its status;
 * compare one side by side, or reject this frame as its duplicate (key d: the closest).
 */
export function SimilarFrames({ submission, onDecide }: SimilarFramesProps) {
  const [comparing, setComparing] = useState<string | null>(null);
  const similar = submission.similar;
  if (similar.length === 0) return null;
  const compared = similar.find((f) => f.id === comparing);
  return (
    <section className="similar" aria-label="Similar earlier frames">
      <h3>
        Looks like {similar.length} earlier frame{similar.length === 1 ? '' : 's'}
      </h3>
      <ul>
        {similar.map((frame) => (
          <li key={frame.id} aria-label={`${frame.title ?? frame.id} — ${frame.status.replace('_', ' ')}`}>
            {frame.thumbnail_url ? (
              <img src={frame.thumbnail_url} alt="" width={48} height={48} />
            ) : (
              <span className="thumb-placeholder" />
            )}
            <span className="similar-text">
              <strong>{frame.title ?? frame.id}</strong>
              <span>
                <span className={`similar-status status-${frame.status}`}>{frame.status.replace('_', ' ')}</span> ·{' '}
                {frame.distance === 0 ? 'identical' : `distance ${frame.distance}`} · {when(frame.created_at)}
              </span>
            </span>
            <Toggle size="sm" isSelected={comparing === frame.id} onChange={(on) => setComparing(on ? frame.id : null)}>
              Compare
            </Toggle>
            {onDecide && (
              <Button size="sm" variant="danger" onPress={() => onDecide(duplicateOf(frame))}>
                Reject as duplicate of this
              </Button>
            )}
          </li>
        ))}
      </ul>
      {compared && <Compare submission={submission} other={compared} />}
    </section>
  );
}
