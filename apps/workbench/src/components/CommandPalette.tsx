import { useState } from 'react';
import type { ChannelCount } from '../api/types';
import { navigate } from '../hooks/useRoute';
import { Dialog, Kbd, setTheme } from '../ui';
import { CommandGroup, CommandItem, CommandMenu } from '../ui/CommandMenu';
import { channelLabel } from './ChannelSwitcher';

export interface CommandPaletteProps {
  readonly isOpen: boolean;
  readonly onOpenChange: (open: boolean) => void;
  readonly channels: readonly ChannelCount[];
  readonly admin: boolean;
  readonly onShortcuts: () => void;
}

/** Actions of the key map, run by sending their key (the screen's own handler does the rest). */
const ACTIONS: readonly (readonly [key: string, label: string])[] = [
  ['p', 'Promote the frame on screen'],
  ['r', 'Reject the frame on screen'],
  ['d', 'Reject as a duplicate of the closest similar frame'],
  ['u', 'Undo the last decision'],
  ['x', 'Select the frame on screen for a bulk action'],
  ['g', 'Grid / list and detail'],
  ['z', 'Frame at 1:1 / fit'],
  ['c', 'Show / hide click zones'],
  ['j', 'Next frame'],
  ['k', 'Previous frame'],
];

/** A submission id typed into the palette: opened as a frame. */
const looksLikeId = (text: string) => /^[A-Za-z0-9_-]{8,64}$/.test(text.trim());

function pressKey(key: string) {
  // After the dialog has closed and given the focus back, as if the reviewer had pressed it.
  setTimeout(() => window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true })), 0);
}

/** ⌘K / Ctrl-K: jump to a channel, a frame by id, the timeline, ops; run any action of the key map. */
export function CommandPalette({ isOpen, onOpenChange, channels, admin, onShortcuts }: CommandPaletteProps) {
  const [search, setSearch] = useState('');
  const run = (action: () => void) => {
    onOpenChange(false);
    setSearch('');
    action();
  };
  return (
    <Dialog title="Command palette" hideTitle isOpen={isOpen} onOpenChange={onOpenChange} className="palette-modal">
      <CommandMenu
        label="Search commands"
        listLabel="Commands"
        search={search}
        onSearch={setSearch}
        placeholder="Type a channel, a frame id or an action…"
        empty="Nothing matches."
      >
        {looksLikeId(search) && (
          <CommandGroup heading="Frame">
            <CommandItem
              id="frame"
              keywords={`open frame ${search}`}
              onAction={() => run(() => navigate(`/?selected=${encodeURIComponent(search.trim())}`))}
            >
              Open frame {search.trim()}
            </CommandItem>
          </CommandGroup>
        )}
        <CommandGroup heading="Go to">
          <CommandItem id="queue" keywords="queue all channels" onAction={() => run(() => navigate('/'))}>
            Queue: all channels
          </CommandItem>
          {admin && (
            <CommandItem id="ops" keywords="ops operations failed" onAction={() => run(() => navigate('/ops'))}>
              Ops
            </CommandItem>
          )}
          {admin && (
            <CommandItem id="people" keywords="people admins reviewers" onAction={() => run(() => navigate('/people'))}>
              People
            </CommandItem>
          )}
          {admin && (
            <CommandItem id="team" keywords="team reviewers numbers" onAction={() => run(() => navigate('/team'))}>
              Team
            </CommandItem>
          )}
          {admin && (
            <CommandItem
              id="policies"
              keywords="policies rules policy"
              onAction={() => run(() => navigate('/policies'))}
            >
              Policies
            </CommandItem>
          )}
        </CommandGroup>
        <CommandGroup heading="Channels">
          {channels.map((c) => (
            <CommandItem
              key={c.slug}
              id={`queue-${c.slug}`}
              keywords={`queue channel ${c.slug} ${c.name}`}
              onAction={() => run(() => navigate(`/?channel=${encodeURIComponent(c.slug)}`))}
            >
              Queue of {channelLabel(c)} <span className="palette-meta">{c.needs_review} waiting</span>
            </CommandItem>
          ))}
          {channels.map((c) => (
            <CommandItem
              key={`t-${c.slug}`}
              id={`timeline-${c.slug}`}
              keywords={`timeline channel ${c.slug} ${c.name}`}
              onAction={() => run(() => navigate(`/channels/${encodeURIComponent(c.slug)}`))}
            >
              Timeline of {channelLabel(c)}
            </CommandItem>
          ))}
        </CommandGroup>
        <CommandGroup heading="Actions">
          {ACTIONS.map(([key, label]) => (
            <CommandItem
              key={key}
              id={`key-${key}`}
              keywords={`${label} ${key}`}
              onAction={() => run(() => pressKey(key))}
            >
              {label} <Kbd>{key}</Kbd>
            </CommandItem>
          ))}
          <CommandItem id="shortcuts" keywords="keyboard shortcuts key map" onAction={() => run(onShortcuts)}>
            Keyboard shortcuts <Kbd>?</Kbd>
          </CommandItem>
          <CommandItem id="theme-dark" keywords="theme dark" onAction={() => run(() => setTheme('dark'))}>
            Theme: dark
          </CommandItem>
          <CommandItem id="theme-light" keywords="theme light" onAction={() => run(() => setTheme('light'))}>
            Theme: light
          </CommandItem>
          <CommandItem id="theme-system" keywords="theme system" onAction={() => run(() => setTheme('system'))}>
            Theme: follow the system
          </CommandItem>
        </CommandGroup>
      </CommandMenu>
    </Dialog>
  );
}
