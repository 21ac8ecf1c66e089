import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setCsrfToken } from '../api/client';
import { detail, queueItem, stubApi } from '../testing/fake-api';
import { EventHistory } from './EventHistory';
import { InternalNotes } from './InternalNotes';

const item = queueItem('sub_a', 'Sunrise');

describe('feedback in the detail view', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists internal notes oldest first and adds one through POST …/notes', async () => {
    setCsrfToken('t');
    const { calls } = stubApi((call) =>
      call.method === 'POST' && call.path === '/review/submissions/sub_a/notes'
        ? {
            status: 201,
            body: {
              id: '3',
              author_email: 'rita@example.com',
              body: (call.body as { body: string }).body,
              created_at: '',
            },
          }
        : undefined,
    );
    const s = detail(item, {
      internal_notes: [
        { id: '1', author_email: 'rita@example.com', body: 'Looks staged', created_at: '2026-01-01T00:00:00.000Z' },
        { id: '2', author_email: 'ana@example.com', body: 'Agreed', created_at: '2026-01-01T00:01:00.000Z' },
      ],
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <InternalNotes submission={s} />
      </QueryClientProvider>,
    );
    const notes = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(notes[0]).toContain('rita@example.com');
    expect(notes[0]).toContain('Looks staged');
    expect(notes[1]).toContain('ana@example.com');
    expect(notes[1]).toContain('Agreed');
    fireEvent.change(screen.getByLabelText('Internal note'), { target: { value: 'Ask for a revision' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add note' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ body: 'Ask for a revision' }));
  });

  it('on a video, a note carries time-coded items taken from the player and lists them', async () => {
    setCsrfToken('t');
    const { calls } = stubApi((call) =>
      call.method === 'POST'
        ? { status: 201, body: { id: '4', author_email: 'r', body: '', created_at: '' } }
        : undefined,
    );
    const s = detail(item, {
      media_type: 'video',
      internal_notes: [
        {
          id: '1',
          author_email: 'rita@example.com',
          body: 'Check the fade',
          moments: [{ start: 4, end: 6.5, label: 'fade too fast' }],
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <InternalNotes submission={s} video={{ time: 2.48, region: null, onClearRegion: () => undefined }} />
      </QueryClientProvider>,
    );
    expect(screen.getByRole('list', { name: 'Time-coded items of this note' }).textContent).toBe(
      '00:04.00–00:06.13 fade too fast',
    );
    const items = screen.getByRole('region', { name: 'Time-coded items of the note' });
    fireEvent.click(within(items).getByRole('button', { name: 'Mark in' }));
    fireEvent.change(within(items).getByLabelText('Label of the item'), { target: { value: 'Logo flickers' } });
    fireEvent.click(within(items).getByRole('button', { name: 'Add item' }));
    fireEvent.change(screen.getByLabelText('Internal note'), { target: { value: 'See 2.48 s' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add note' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
        body: 'See 2.48 s',
        moments: [{ at: 2.48, label: 'Logo flickers' }],
      }),
    );
  });

  it('shows a decision’s note and regions in the history', () => {
    render(
      <EventHistory
        events={[
          {
            id: '9',
            type: 'transition',
            from: 'needs_review',
            to: 'rejected',
            actor_type: 'reviewer',
            actor: 'rita@example.com',
            reason: 'Low quality',
            note: 'Crop wider',
            regions: [{ x: 0.1, y: 0.2, width: 0.3, height: 0.4, label: 'logo cut off' }],
            created_at: '2026-01-01T00:00:00.000Z',
          },
        ]}
        image="/frame.webp"
      />,
    );
    expect(screen.getByRole('listitem').textContent).toContain('note: “Crop wider”');
    expect(screen.getByRole('img', { name: 'Regions: logo cut off' })).toBeTruthy();
  });
});
