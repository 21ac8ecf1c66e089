import { cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useKeyboard } from './useKeyboard';

function Keys({ onJ }: { onJ: () => void }) {
  useKeyboard({ j: onJ });
  return (
    <>
      <button type="button">outside</button>
      <input aria-label="field" />
      <div role="dialog" aria-label="Reasons">
        <button type="button">inside</button>
      </div>
    </>
  );
}

describe('useKeyboard', () => {
  afterEach(cleanup);

  it('runs a key on the page or a button, but not while typing or inside a dialog', () => {
    const onJ = vi.fn();
    const { getByText, getByLabelText } = render(<Keys onJ={onJ} />);
    fireEvent.keyDown(window, { key: 'j' });
    fireEvent.keyDown(getByText('outside'), { key: 'j' });
    expect(onJ).toHaveBeenCalledTimes(2);
    fireEvent.keyDown(getByLabelText('field'), { key: 'j' });
    fireEvent.keyDown(getByText('inside'), { key: 'j' });
    expect(onJ).toHaveBeenCalledTimes(2);
  });
});
