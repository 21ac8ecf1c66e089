import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Version } from '../api/types';
import { detail, queueItem } from '../testing/fake-api';
import { VERSIONS_PAGE, VersionStack } from './VersionStack';

/** Version `i` of a stack of `n`: all rejected but the last, which is this frame. */
const version = (i: number, n: number): Version => ({
  id: `sub_${i}`,
  title: `Take ${i + 1}`,
  status: i < n - 1 ? 'rejected' : 'needs_review',
  created_at: `2026-01-01T00:${String(i).padStart(2, '0')}:00.000Z`,
  revision_of: i === 0 ? null : 'sub_0',
  current: i === n - 1,
  image_url: null,
  thumbnail_url: null,
  width: 800,
  height: 600,
  media_type: 'image',
  video_url: null,
  poster_url: null,
  duration_ms: null,
  review:
    i < n - 1
      ? {
          decision: 'rejected',
          reason: 'Low quality',
          note: null,
          regions: [],
          moments: [],
          reviewed_at: null,
          decided_by: 'person',
        }
      : null,
});

const stack = (n: number, current = n - 1) =>
  detail(queueItem(`sub_${current}`, 'Take'), {
    revision_of: 'sub_0',
    versions: Array.from({ length: n }, (_, i) => ({ ...version(i, n), current: i === current })),
  });

const items = () =>
  screen.getAllByRole('listitem').filter((li) => li.getAttribute('aria-label')?.startsWith('Version'));

describe('the version stack', () => {
  afterEach(cleanup);

  it('shows a page of a long stack and a "more" control that adds a page at a time', () => {
    render(<VersionStack submission={stack(25, 3)} />);
    expect(screen.getByRole('heading', { name: 'Versions (25)' })).toBeTruthy();
    expect(items()).toHaveLength(VERSIONS_PAGE);
    fireEvent.click(screen.getByRole('button', { name: 'Show 10 more of 15 versions' }));
    expect(items()).toHaveLength(2 * VERSIONS_PAGE);
    fireEvent.click(screen.getByRole('button', { name: 'Show 5 more of 5 versions' }));
    expect(items()).toHaveLength(25);
    expect(screen.queryByRole('button', { name: /more of/ })).toBeNull();
  });

  it('shows this frame at once even past the first page', () => {
    render(<VersionStack submission={stack(14)} />);
    expect(items()).toHaveLength(14);
    expect(screen.getByRole('listitem', { name: /^Version 14: .*\(this frame\)$/ })).toBeTruthy();
  });

  it('a short stack has no "more" control', () => {
    render(<VersionStack submission={stack(3)} />);
    expect(items()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: /more of/ })).toBeNull();
  });

  it('plays a video revision beside the version it replaces, in step, with its time-coded items on the timeline', async () => {
    const moments = [{ start: 1.2, end: 2.5, label: 'Logo flickers' }];
    const earlier = version(0, 2);
    const video = (v: Version) => ({
      ...v,
      media_type: 'video',
      video_url: `/review/submissions/${v.id}/original`,
      duration_ms: 6000,
    });
    const s = {
      ...stack(2),
      media_type: 'video' as const,
      video_url: '/review/submissions/sub_1/original',
      versions: [
        video({ ...earlier, review: { ...earlier.review!, moments } }),
        video({ ...version(1, 2), current: true }),
      ],
    };
    render(<VersionStack submission={s} />);
    // The players load on demand: the first import of their chunk is transformed on the spot.
    const pair = await screen.findByRole('group', { name: 'Videos in step' }, { timeout: 15_000 });
    const videos = pair.querySelectorAll('video');
    expect([...videos].map((v) => v.getAttribute('src'))).toEqual([
      '/review/submissions/sub_1/original',
      '/review/submissions/sub_0/original',
    ]);
    // One timeline, the revision's, with the earlier rejection's item on it.
    expect(screen.getAllByRole('slider', { name: /Timeline/ })).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Previous version: Logo flickers at 1.20 s to 2.50 s' }));
    expect([...videos].map((v) => v.currentTime)).toEqual([1.2, 1.2]);
    const times = screen.getAllByTestId('player-time').map((t) => t.textContent);
    expect(times).toEqual(['00:01.05', '00:01.05']);
    expect(screen.getByRole('listitem', { name: /^Version 1/ }).textContent).toContain('1 time-coded item');
  });
});
