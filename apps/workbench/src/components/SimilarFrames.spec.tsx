import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detail, queueItem, stubApi } from '../testing/fake-api';
import { SimilarBadge } from './SimilarBadge';
import { SimilarFrames } from './SimilarFrames';

const earlier = {
  id: 'sub_old',
  title: 'Sunrise',
  status: 'promoted',
  channel_slug: 'news',
  distance: 3,
  thumbnail_url: '/media/sub_old/thumbnail',
  created_at: '2025-12-31T08:00:00.000Z',
};

describe('SimilarFrames', () => {
  afterEach(cleanup);

  it('lists earlier frames with status and distance; compares side by side; rejects naming the frame', async () => {
    stubApi(({ path }) =>
      path === '/review/submissions/sub_old'
        ? { status: 200, body: detail(queueItem('sub_old', 'Sunrise'), { status: 'promoted' }) }
        : undefined,
    );
    const onDecide = vi.fn();
    const frame = detail(queueItem('sub_new', 'Sunrise again'), { similar: [earlier] });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SimilarFrames submission={frame} onDecide={onDecide} />
      </QueryClientProvider>,
    );
    const region = screen.getByRole('region', { name: 'Similar earlier frames' });
    const item = within(region).getByRole('listitem', { name: 'Sunrise — promoted' });
    expect(item.textContent).toContain('distance 3');

    fireEvent.click(within(item).getByRole('button', { name: 'Compare' }));
    const compare = screen.getByRole('group', { name: 'Side-by-side comparison' });
    expect(within(compare).getByRole('img', { name: 'This frame' }).getAttribute('src')).toBe('/media/sub_new/preview');
    await within(compare).findByRole('img', { name: 'Earlier frame Sunrise' });

    fireEvent.click(within(item).getByRole('button', { name: 'Reject as duplicate of this' }));
    expect(onDecide).toHaveBeenCalledWith({
      decision: 'reject',
      reason: 'Duplicate of an earlier frame',
      duplicate_of: 'sub_old',
    });
  });

  it('shows nothing without similar frames, and no badge for 0', () => {
    const { container } = render(
      <QueryClientProvider client={new QueryClient()}>
        <SimilarFrames submission={detail(queueItem('sub_a', 'Alone'))} />
        <SimilarBadge count={0} />
      </QueryClientProvider>,
    );
    expect(container.textContent).toBe('');
    render(<SimilarBadge count={2} />);
    expect(screen.getByLabelText('Looks like 2 earlier frames').textContent).toBe('Looks like 2');
  });
});
