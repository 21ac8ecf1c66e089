import { useState } from 'react';
import { useChannelCounts } from '../hooks/useQueue';
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
 * How many frames wait (the channel counts: exact for a channel or all; with other filters, the
 * frames loaded so far) and how long the oldest has waited; the view switches.
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
  const channels = useChannelCounts().data?.channels ?? [];
  const channel = query.get('channel');
  const narrowed = ['agent', 'media_type', 'date_from', 'date_to'].some((k) => query.has(k));
  const counted = channel
    ? channels.find((c) => c.slug === channel)?.needs_review
    : channels.reduce((sum, c) => sum + c.needs_review, 0);
  const total = !narrowed && counted !== undefined && channels.length > 0 ? counted : null;
  const count = total !== null ? total.toLocaleString() : `${waiting.toLocaleString()}${more ? '+' : ''}`;
  return (
    <div className="queue-tools">
      <p className="queue-stats" aria-live="polite">
        <strong>{`${count} waiting`}</strong>
        {oldest && (
          <span className="hint" title={new Date(oldest).toLocaleString()}>
            {` · oldest ${relativeAge(oldest)}`}
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
