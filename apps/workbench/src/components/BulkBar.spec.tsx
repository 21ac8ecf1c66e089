import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_REJECT_REASONS } from '../api/types';
import { BulkBar } from './BulkBar';

describe('BulkBar', () => {
  afterEach(cleanup);

  it('offers every reject reason but "Duplicate of an earlier frame", which names one earlier frame per frame', async () => {
    const onDecide = vi.fn();
    render(<BulkBar count={2} onDecide={onDecide} onClear={() => undefined} />);
    fireEvent.click(screen.getByRole('button', { name: 'Reject selected (2)' }));
    const reasons = await screen.findByRole('group', { name: 'Reasons' });
    const offered = within(reasons)
      .getAllByRole('button')
      .map((o) => o.textContent?.replace(/^\d+\s*/, ''));
    expect(DEFAULT_REJECT_REASONS).toContain('Duplicate of an earlier frame');
    expect(offered).toEqual(DEFAULT_REJECT_REASONS.filter((r) => r !== 'Duplicate of an earlier frame'));
    fireEvent.keyDown(within(reasons).getAllByRole('button')[0]!, { key: '1' });
    expect(onDecide).toHaveBeenCalledWith({ decision: 'reject', reason: DEFAULT_REJECT_REASONS[0] });
  });
});
