import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queueItem } from '../testing/fake-api';
import { QueueList } from './QueueList';

describe('QueueList', () => {
  afterEach(cleanup);

  it('is a list whose items name the title and the channel', () => {
    const items = [
      queueItem('sub_a', 'Sunrise', 'news'),
      {
        ...queueItem('sub_b', 'Sunset', 'sports'),
        claim: { reviewer_id: 'r2', reviewer_email: 'bob@example.com', until: '2026-01-01T00:05:00Z', mine: false },
      },
    ];
    render(<QueueList items={items} selectedId="sub_b" onSelect={() => undefined} />);
    const list = screen.getByRole('list', { name: 'Review queue' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.getAttribute('aria-label'))).toEqual(['Sunrise — news', 'Sunset — sports']);
    expect(screen.getByRole('listitem', { name: /Sunset — sports/ }).getAttribute('aria-current')).toBe('true');
    expect(screen.getByText('Being reviewed by bob@example.com')).toBeTruthy();
  });

  it('selects an item on click and says when nothing waits', () => {
    const onSelect = vi.fn();
    const { rerender } = render(
      <QueueList items={[queueItem('sub_a', 'Sunrise')]} selectedId={null} onSelect={onSelect} />,
    );
    fireEvent.click(screen.getByRole('button', { name: /Sunrise/ }));
    expect(onSelect).toHaveBeenCalledWith('sub_a');
    rerender(<QueueList items={[]} selectedId={null} onSelect={onSelect} />);
    expect(screen.getByText('Nothing waits for review.')).toBeTruthy();
  });
});
