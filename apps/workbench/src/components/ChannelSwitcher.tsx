import { useId, useMemo, useRef, useState } from 'react';
import type { ChannelCount } from '../api/types';

export interface ChannelSwitcherProps {
  readonly channels: readonly ChannelCount[];
  /** The channel in use (queue filter or the timeline on screen); null for all. */
  readonly current: string | null;
  readonly onPick: (slug: string | null) => void;
  /** Offer "All channels" (the queue) or not (a timeline is always one channel's). */
  readonly allowAll?: boolean;
}

/**
 * A searchable channel picker (ARIA combobox): type to filter by name or slug, arrows to move,
 * Enter to pick, Escape to close. One control whatever the number of channels.
 */
export function ChannelSwitcher({ channels, current, onPick, allowAll = true }: ChannelSwitcherProps) {
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const options = useMemo(() => {
    const needle = text.trim().toLowerCase();
    const matching = channels
      .filter((c) => !needle || c.slug.includes(needle) || c.name.toLowerCase().includes(needle))
      .map((c) => ({ slug: c.slug as string | null, label: `${c.name} (${c.needs_review})` }));
    return allowAll && !needle ? [{ slug: null, label: 'All channels' }, ...matching] : matching;
  }, [channels, text, allowAll]);
  const currentName = channels.find((c) => c.slug === current)?.name ?? current ?? 'All channels';

  const pick = (slug: string | null) => {
    setOpen(false);
    setText('');
    input.current?.blur(); // the single-key shortcuts work again
    onPick(slug);
  };

  return (
    <div className="channel-switcher">
      <input
        ref={input}
        type="text"
        role="combobox"
        aria-label="Channel"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && options[active] ? `${listId}-${active}` : undefined}
        placeholder={currentName}
        value={open ? text : ''}
        onFocus={() => {
          setOpen(true);
          setActive(0);
        }}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
            setActive((i) => Math.min(i + 1, options.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((i) => Math.max(i - 1, 0));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            const option = options[active];
            if (option) pick(option.slug);
          } else if (e.key === 'Escape') {
            setOpen(false);
            e.currentTarget.blur();
          }
        }}
      />
      {open && (
        <ul id={listId} role="listbox" aria-label="Channels" className="channel-options">
          {options.map((o, i) => (
            <li
              key={o.slug ?? ''}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={o.slug === current ? 'current' : undefined}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(o.slug)}
            >
              {o.label}
            </li>
          ))}
          {options.length === 0 && (
            <li role="option" aria-selected={false} aria-disabled="true">
              No channel matches
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
