import type { ChannelCount } from '../api/types';

export function ChannelCounts({
  channels,
  onPick,
}: {
  readonly channels: readonly ChannelCount[];
  readonly onPick: (slug: string) => void;
}) {
  return (
    <ul className="channel-counts" aria-label="Waiting per channel">
      {channels.map((c) => (
        <li key={c.slug}>
          <button type="button" className="link" onClick={() => onPick(c.slug)}>
            {c.name}
          </button>{' '}
          <span aria-label={`${c.needs_review} waiting`}>{c.needs_review}</span>
        </li>
      ))}
    </ul>
  );
}
