import { Command } from 'cmdk';
import { useState } from 'react';
import type { ChannelCount } from '../api/types';
import { navigate } from '../hooks/useRoute';
import { Dialog, Kbd, setTheme } from '../ui';
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
      <Command label="Search commands" className="palette" loop>
        <Command.Input
          className="ui-input palette-input"
          value={search}
          onValueChange={setSearch}
          placeholder="Type a channel, a frame id or an action…"
          autoFocus
        />
        <Command.List className="palette-list" label="Commands">
          <Command.Empty className="palette-empty">Nothing matches.</Command.Empty>
          {looksLikeId(search) && (
            <Command.Group heading="Frame" forceMount>
              <Command.Item
                forceMount
                value={`open frame ${search}`}
                onSelect={() => run(() => navigate(`/?selected=${encodeURIComponent(search.trim())}`))}
              >
                Open frame {search.trim()}
              </Command.Item>
            </Command.Group>
          )}
          <Command.Group heading="Go to">
            <Command.Item value="queue all channels" onSelect={() => run(() => navigate('/'))}>
              Queue: all channels
            </Command.Item>
            {admin && (
              <Command.Item value="ops operations failed" onSelect={() => run(() => navigate('/ops'))}>
                Ops
              </Command.Item>
            )}
            {admin && (
              <Command.Item value="people admins reviewers" onSelect={() => run(() => navigate('/people'))}>
                People
              </Command.Item>
            )}
          </Command.Group>
          <Command.Group heading="Channels">
            {channels.map((c) => (
              <Command.Item
                key={c.slug}
                value={`queue channel ${c.slug} ${c.name}`}
                onSelect={() => run(() => navigate(`/?channel=${encodeURIComponent(c.slug)}`))}
              >
                Queue of {channelLabel(c)} <span className="palette-meta">{c.needs_review} waiting</span>
              </Command.Item>
            ))}
            {channels.map((c) => (
              <Command.Item
                key={`t-${c.slug}`}
                value={`timeline channel ${c.slug} ${c.name}`}
                onSelect={() => run(() => navigate(`/channels/${encodeURIComponent(c.slug)}`))}
              >
                Timeline of {channelLabel(c)}
              </Command.Item>
            ))}
          </Command.Group>
          <Command.Group heading="Actions">
            {ACTIONS.map(([key, label]) => (
              <Command.Item key={key} value={`${label} ${key}`} onSelect={() => run(() => pressKey(key))}>
                {label} <Kbd>{key}</Kbd>
              </Command.Item>
            ))}
            <Command.Item value="keyboard shortcuts key map" onSelect={() => run(onShortcuts)}>
              Keyboard shortcuts <Kbd>?</Kbd>
            </Command.Item>
            <Command.Item value="theme dark" onSelect={() => run(() => setTheme('dark'))}>
              Theme: dark
            </Command.Item>
            <Command.Item value="theme light" onSelect={() => run(() => setTheme('light'))}>
              Theme: light
            </Command.Item>
            <Command.Item value="theme system" onSelect={() => run(() => setTheme('system'))}>
              Theme: follow the system
            </Command.Item>
          </Command.Group>
        </Command.List>
      </Command>
    </Dialog>
  );
}
