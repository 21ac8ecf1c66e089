import { lazy, Suspense, useState } from 'react';
import type { SubmissionDetail, Version } from '../api/types';
import { Badge, Button } from '../ui';
import { streamPlayerUrl } from './MediaView';
import { RegionFigure } from './Regions';
import { SideBySide, when } from './SimilarFrames';
import './feedback.css';

/** Two videos in step load on demand, with the player (docs/workbench.md, the budget). */
const VideoCompare = lazy(() => import('./video/players').then((m) => ({ default: m.VideoCompare })));

/** Stored videos both (Stream's play in Stream's own player, which cannot be kept in step). */
const playable = (url: string | null | undefined): url is string => !!url && !streamPlayerUrl(url);

/** The previous version's caption: its title, status and the reason it was rejected. */
const captionOf = (previous: Version) =>
  `${previous.title ?? previous.id} · ${status(previous.status)}${previous.review?.reason ? ` · ${previous.review.reason}` : ''}`;

/** This frame beside the version it revises: two videos in step, else the two pictures. */
function CompareWithPrevious({
  submission,
  previous,
}: {
  readonly submission: SubmissionDetail;
  readonly previous: Version;
}) {
  if (
    submission.media_type === 'video' &&
    previous.media_type === 'video' &&
    playable(submission.video_url) &&
    playable(previous.video_url)
  )
    return (
      <Suspense fallback={<p className="hint">Loading the players…</p>}>
        <VideoCompare
          current={{
            src: submission.video_url,
            name: `This version: ${submission.title ?? submission.id}`,
            poster: submission.poster_url,
            durationMs: submission.duration_ms,
            sprite: submission.variants['sprite'],
            spriteVtt: submission.variants['sprite_vtt'],
            measurement: submission.measurement,
            caption: 'This version',
          }}
          previous={{
            src: previous.video_url,
            name: `Previous version: ${previous.title ?? previous.id}`,
            poster: previous.poster_url,
            durationMs: previous.duration_ms,
            caption: captionOf(previous),
            moments: previous.review?.moments ?? [],
          }}
        />
      </Suspense>
    );
  return (
    <SideBySide
      left={{ src: submission.image_url ?? submission.thumbnail_url, alt: 'This frame', caption: 'This frame' }}
      right={{
        src: previous.image_url ?? previous.thumbnail_url,
        alt: `Previous version ${previous.title ?? previous.id}`,
        caption: captionOf(previous),
        regions: previous.review?.regions ?? [],
      }}
    />
  );
}

/** A later version of this frame that was promoted, if any. */
export function promotedRevision(submission: SubmissionDetail): Version | undefined {
  const versions = submission.versions ?? [];
  const index = versions.findIndex((v) => v.current);
  return index < 0 ? undefined : versions.slice(index + 1).find((v) => v.status === 'promoted');
}

const status = (s: string) => s.replace('_', ' ');

/** How a decision was made, as the version stack says it. */
const DECIDED_BY_TEXT: Record<string, string> = {
  person: 'by a person',
  policy: 'by a policy',
  channel: 'without review (the channel does not require it)',
};

/** What a version's decision said: reason, note, who (a person or a policy). */
function Feedback({ version }: { readonly version: Version }) {
  const review = version.review;
  if (!review) return null;
  return (
    <span>
      {`${review.decision} ${DECIDED_BY_TEXT[review.decided_by]}`}
      {review.reason ? ` · ${review.reason}` : ''}
      {review.note ? ` · “${review.note}”` : ''}
      {review.moments.length > 0
        ? ` · ${review.moments.length} time-coded item${review.moments.length === 1 ? '' : 's'}`
        : ''}
    </span>
  );
}

/** Versions listed at first, and added by each press of "more". */
export const VERSIONS_PAGE = 10;

/**
 * The version stack (frames linked by the agent's `metadata.revision_of`), oldest first, a page at a
 * time (VERSIONS_PAGE, enough to include this frame; "Show N more" adds a page): each
 * version's decision and feedback with its regions drawn; a promoted later revision is named on the
 * versions it replaces; and this frame side by side with the version it revises.
 */
export function VersionStack({ submission }: { readonly submission: SubmissionDetail }) {
  const versions = submission.versions ?? [];
  // A page of versions at first (enough to include this frame), a page more at each "more".
  const currentAt = versions.findIndex((v) => v.current);
  const [shown, setShown] = useState(Math.max(VERSIONS_PAGE, currentAt + 1));
  if (versions.length < 2) return null;
  const previous = versions.find((v) => v.id === submission.revision_of);
  const hidden = versions.length - Math.min(shown, versions.length);
  return (
    <section className="versions" aria-labelledby="versions-heading">
      <h3 id="versions-heading">Versions ({versions.length})</h3>
      <ol>
        {versions.slice(0, shown).map((v, i) => {
          return (
            <li
              key={v.id}
              className={v.current ? 'current' : undefined}
              aria-label={`Version ${i + 1}: ${v.title ?? v.id} — ${status(v.status)}${v.current ? ' (this frame)' : ''}`}
            >
              <span>
                <strong>{`v${i + 1} · ${v.title ?? v.id}`}</strong> <Badge>{status(v.status)}</Badge>{' '}
                {v.current && <Badge tone="accent">this frame</Badge>}
                {versions.slice(i + 1).some((x) => x.status === 'promoted') && (
                  <Badge tone="success">revision promoted</Badge>
                )}{' '}
                · {when(v.created_at)}
              </span>
              <Feedback version={v} />
              {v.review && v.review.regions.length > 0 && (
                <RegionFigure
                  src={v.thumbnail_url ?? v.image_url}
                  alt={`Version ${i + 1} with its regions`}
                  regions={v.review.regions}
                />
              )}
            </li>
          );
        })}
      </ol>
      {hidden > 0 && (
        <Button size="sm" onPress={() => setShown((n) => n + VERSIONS_PAGE)}>
          {`Show ${Math.min(hidden, VERSIONS_PAGE)} more of ${hidden} versions`}
        </Button>
      )}
      {previous && (
        <>
          <h3>Compared with the previous version</h3>
          <CompareWithPrevious submission={submission} previous={previous} />
        </>
      )}
    </section>
  );
}
