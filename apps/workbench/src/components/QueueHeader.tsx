import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { Toggle } from '../ui';
import type { Density } from './QueueList';
import { relativeAge } from './QueueMeta';

const DENSITY_KEY = 'framedesk.density';

/** Compact or comfortable rows, kept in this browser. */
export function useDensity(): readonly [Density, (d: Density) => void] {
  const [density, set] = useState<Density>(() => {
    try {
      return window.localStorage.getItem(DENSITY_KEY) === 'compact' ? 'compact' : 'comfortable';
    } catch {
      return 'comfortable';
    }
  });
  const setDensity = (d: Density) => {
    set(d);
    try {
      window.localStorage.setItem(DENSITY_KEY, d);
    } catch {
      // private mode: for this page only
    }
  };
  return [density, setDensity] as const;
}

/**
 * How many frames wait and since when the oldest (GET /review/stats: exact for a channel or all;
 * with other filters, the frames loaded so far), the reviewer's own pace today; the view switches.
 */
export function QueueHeader({
  query,
  waiting,
  more,
  oldest,
  grid,
  onGrid,
  density,
  onDensity,
}: {
  readonly query: URLSearchParams;
  readonly waiting: number;
  readonly more: boolean;
  readonly oldest: string | null;
  readonly grid: boolean;
  readonly onGrid: (on: boolean) => void;
  readonly density: Density;
  readonly onDensity: (d: Density) => void;
}) {
  const channel = query.get('channel');
  // Refetched after each decision and every half minute (ages and pace move on without events).
  const stats = useQuery({
    queryKey: ['stats', channel],
    queryFn: () => api.stats(channel),
    refetchInterval: 30_000,
  }).data;
  const narrowed = ['agent', 'media_type', 'date_from', 'date_to'].some((k) => query.has(k));
  const count =
    stats && !narrowed ? stats.backlog.waiting.toLocaleString() : `${waiting.toLocaleString()}${more ? '+' : ''}`;
  const since = narrowed ? oldest : (stats?.backlog.oldest_created_at ?? oldest);
  const pace = stats?.median_seconds_per_decision;
  return (
    <div className="queue-tools">
      <p className="queue-stats">
        <strong>{`${count} waiting`}</strong>
        {since && (
          <span className="hint" title={new Date(since).toLocaleString()}>
            {` · oldest ${relativeAge(since)}`}
          </span>
        )}
        {stats && (
          <span className="hint mine">
            {` · you: ${stats.decisions_today} today`}
            {pace != null ? `, ${pace < 90 ? `${pace} s` : `${Math.round(pace / 60)} min`} each` : ''}
          </span>
        )}
      </p>
      <div className="view-switch">
        <Toggle
          size="sm"
          isSelected={density === 'compact'}
          onChange={(on) => onDensity(on ? 'compact' : 'comfortable')}
        >
          Compact
        </Toggle>
        <Toggle size="sm" isSelected={grid} onChange={onGrid}>
          Grid
        </Toggle>
      </div>
    </div>
  );
}
