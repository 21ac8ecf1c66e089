import type { ChannelCount } from '../api/types';
import { ComboBox } from '../ui';

export interface ChannelSwitcherProps {
  readonly channels: readonly ChannelCount[];
  /** The channel in use (queue filter or the timeline on screen); null for all. */
  readonly current: string | null;
  readonly onPick: (slug: string | null) => void;
  /** Offer "All channels" (the queue) or not (a timeline is always one channel's). */
  readonly allowAll?: boolean;
}

/** The channel's name, with its slug when they differ (both can be typed to find it). */
export function channelLabel(c: Pick<ChannelCount, 'slug' | 'name'>): string {
  return c.name === c.slug ? c.slug : `${c.name} · ${c.slug}`;
}

/** A searchable channel picker: type part of a name or slug, arrows and Enter to pick. One control whatever the number of channels. */
export function ChannelSwitcher({ channels, current, onPick, allowAll = true }: ChannelSwitcherProps) {
  const options = [
    ...(allowAll ? [{ id: '', label: 'All channels' }] : []),
    ...channels.map((c) => ({ id: c.slug, label: `${channelLabel(c)} (${c.needs_review})` })),
  ];
  const currentName = channels.find((c) => c.slug === current)?.name ?? current ?? 'All channels';
  return (
    <ComboBox
      className="channel-switcher"
      label="Channel"
      listLabel="Channels"
      hideLabel
      options={options}
      value={current}
      placeholder={currentName}
      onChange={(slug) => onPick(slug || null)}
    />
  );
}
