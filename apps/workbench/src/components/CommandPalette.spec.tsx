import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandPalette } from './CommandPalette';

const channels = [
  { slug: 'news', name: 'News', needs_review: 3 },
  { slug: 'sports', name: 'Sports', needs_review: 0 },
];

/** As a keyboard does: React Aria highlights the first match only for typed text. */
function typeInto(input: HTMLElement, text: string) {
  fireEvent(input, new InputEvent('beforeinput', { inputType: 'insertText', data: text, bubbles: true }));
  fireEvent.change(input, { target: { value: text } });
}

function pressEnter(input: HTMLElement) {
  fireEvent.keyDown(input, { key: 'Enter' });
  fireEvent.keyUp(input, { key: 'Enter' });
}

function renderPalette() {
  const onOpenChange = vi.fn();
  render(<CommandPalette isOpen onOpenChange={onOpenChange} channels={channels} admin onShortcuts={() => undefined} />);
  const dialog = screen.getByRole('dialog', { name: 'Command palette' });
  return { dialog, onOpenChange, input: within(dialog).getByRole('textbox', { name: 'Search commands' }) };
}

describe('CommandPalette', () => {
  beforeEach(() => window.history.replaceState(null, '', '/'));
  afterEach(cleanup);

  it('keeps the commands whose keywords hold every word typed, and Enter runs the first', async () => {
    const { dialog, input, onOpenChange } = renderPalette();
    typeInto(input, 'queue new');
    const options = within(dialog).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual([expect.stringMatching(/^Queue of News.*3 waiting$/)]);
    // The first command left is highlighted (the focus stays in the field), so Enter runs it.
    await waitFor(() => expect(input.getAttribute('aria-activedescendant')).toBe(options[0]!.id));
    pressEnter(input);
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(new URLSearchParams(window.location.search).get('channel')).toBe('news');
  });

  it('opens a frame by a pasted id with Enter, and says when nothing matches', () => {
    const { dialog, input, onOpenChange } = renderPalette();
    fireEvent.change(input, { target: { value: 'sub_0123456789' } });
    expect(
      within(dialog)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Open frame sub_0123456789']);
    // Pasted, not typed: nothing is highlighted, and Enter still runs the one command left.
    expect(input.getAttribute('aria-activedescendant')).toBeNull();
    pressEnter(input);
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(new URLSearchParams(window.location.search).get('selected')).toBe('sub_0123456789');
    fireEvent.change(input, { target: { value: 'zzz' } });
    // React Aria puts the empty state where the options were.
    expect(
      within(dialog)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Nothing matches.']);
  });
});
