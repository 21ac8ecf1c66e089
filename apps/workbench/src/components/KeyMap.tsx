import { useState } from 'react';
import { useKeyboard } from '../hooks/useKeyboard';

/** Every single-key shortcut of the workbench; `?` shows them, docs/workbench.md repeats them. */
export const KEY_MAP: readonly (readonly [string, string])[] = [
  ['j / k', 'next / previous frame (list and grid)'],
  ['p', 'promote the frame on screen'],
  ['r', 'reject the frame on screen (opens the reason form)'],
  ['d', 'reject as a duplicate of the closest similar earlier frame'],
  ['u', 'undo the last decision (5 seconds)'],
  ['x', 'select or unselect the frame on screen for a bulk action'],
  ['g', 'grid of large thumbnails / list and detail'],
  ['z', 'zoom the frame to 1:1 (drag or arrow keys to pan) / fit'],
  ['c', 'show / hide the click zones'],
  ['?', 'show / hide this key map'],
  ['Esc', 'close the reason form or this key map'],
];

export function KeyMap() {
  const [open, setOpen] = useState(false);
  useKeyboard({ '?': () => setOpen((o) => !o), Escape: () => setOpen(false) });
  return (
    <>
      <button type="button" aria-keyshortcuts="?" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Keys
      </button>
      {open && (
        <div className="keymap" role="dialog" aria-label="Keyboard shortcuts">
          <h2>Keyboard shortcuts</h2>
          <dl>
            {KEY_MAP.map(([key, what]) => (
              <div key={key}>
                <dt>
                  <kbd>{key}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
          <button type="button" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
      )}
    </>
  );
}
