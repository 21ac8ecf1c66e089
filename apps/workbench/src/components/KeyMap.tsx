import { Button, Dialog, Kbd } from '../ui';

/** Every single-key shortcut of the workbench; `?` shows them, docs/workbench.md repeats them. */
export const KEY_MAP: readonly (readonly [string, string])[] = [
  ['j / k', 'next / previous frame (list and grid)'],
  ['p', 'promote the frame on screen'],
  ['r', 'reject the frame on screen (reasons: 1–9)'],
  ['d', 'reject as a duplicate of the closest similar earlier frame'],
  ['u', 'undo the last decision (5 seconds)'],
  ['x', 'select or unselect the frame on screen for a bulk action'],
  ['g', 'grid of large thumbnails / list and detail'],
  ['z', 'the frame at 1:1 / fitted'],
  ['+ / - / 0', 'zoom in / out / fit (drag or arrow keys to pan)'],
  ['c', 'show / hide the click zones'],
  ['J / K / L', 'video player (when it has focus): back a second / pause / play (again: faster); compare: both'],
  [', / .', 'video player (when it has focus): one frame back / forward (25 fps); compare: both'],
  ['?', 'show / hide this key map'],
  ['Ctrl K / ⌘K', 'command palette: channels, frames, screens, actions'],
  ['Esc', 'close the reason form, a dialog or the palette'],
];

/** The key map as a dialog (`?`). */
export function KeyMapDialog({ isOpen, onOpenChange }: { isOpen: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog title="Keyboard shortcuts" isOpen={isOpen} onOpenChange={onOpenChange}>
      <dl className="keymap">
        {KEY_MAP.map(([key, what]) => (
          <div key={key}>
            <dt>
              {key.split(' / ').map((k, i) => (
                <span key={k}>
                  {i > 0 && ' / '}
                  <Kbd>{k}</Kbd>
                </span>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

/** The header's button for the key map. */
export function KeyMapButton({ onOpen }: { onOpen: () => void }) {
  return (
    <Button
      variant="ghost"
      size="sm"
      className="header-button keymap-button"
      onPress={onOpen}
      aria-label="Keyboard shortcuts (?)"
    >
      <Kbd>?</Kbd> Shortcuts
    </Button>
  );
}
