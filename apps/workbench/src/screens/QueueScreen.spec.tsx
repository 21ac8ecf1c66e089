import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setCsrfToken } from '../api/client';
import { useReviewEvents } from '../hooks/useReviewEvents';
import { useRoute } from '../hooks/useRoute';
import { detail, queueItem, stubApi, stubQuietEventStream } from '../testing/fake-api';
import { Toaster } from '../ui';
import { QueueScreen } from './QueueScreen';

const a = queueItem('sub_a', 'Sunrise', 'news');
const b = queueItem('sub_b', 'Sunset', 'sports');

function Screen({ undoMs }: { undoMs: number }) {
  useReviewEvents();
  return <QueueScreen route={useRoute()} undoMs={undoMs} />;
}

function renderScreen(undoMs = 60) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <Screen undoMs={undoMs} />
      <Toaster />
    </QueryClientProvider>,
  );
}

function api(decision: { status: number; body?: unknown } = { status: 200, body: detail(a, { status: 'promoted' }) }) {
  return stubApi((call) => {
    if (call.path.startsWith('/review/queue')) return { status: 200, body: { items: [a, b], next_cursor: null } };
    if (call.path === '/review/channels')
      return { status: 200, body: { channels: [{ slug: 'news', name: 'News', needs_review: 1 }] } };
    if (call.path === '/review/submissions/sub_a') return { status: 200, body: detail(a) };
    if (call.path === '/review/submissions/sub_b') return { status: 200, body: detail(b) };
    if (call.path.endsWith('/claim')) return call.method === 'DELETE' ? { status: 204 } : { status: 200, body: {} };
    if (call.path.endsWith('/decision')) return decision;
    return undefined;
  });
}

describe('QueueScreen', () => {
  beforeEach(() => window.history.replaceState(null, '', '/?channel=news'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('tells a reviewer with no channels that they are not a member of any, and where an admin adds them', async () => {
    stubApi((call) => {
      if (call.path.startsWith('/review/queue')) return { status: 200, body: { items: [], next_cursor: null } };
      if (call.path === '/review/channels') return { status: 200, body: { channels: [] } };
      if (call.path === '/review/session')
        return {
          status: 200,
          body: {
            reviewer: { id: 'rev_n', email: 'new@example.com', name: null, role: 'reviewer' },
            csrf_token: 'csrf',
            expires_at: '2999-01-01T00:00:00.000Z',
          },
        };
      return undefined;
    });
    renderScreen();
    expect(
      await screen.findByText('You are not a member of any channel yet; an admin can add you on the People screen.'),
    ).toBeTruthy();
    expect(screen.queryByText('Nothing waits for review.')).toBeNull();
  });

  it('keeps filters in the URL, selects the oldest frame and claims it on open', async () => {
    const { calls } = api();
    renderScreen();
    expect(await screen.findByRole('heading', { name: 'Sunrise' })).toBeTruthy();
    expect(calls.some((c) => c.path.startsWith('/review/queue?channel=news'))).toBe(true);
    expect(new URLSearchParams(window.location.search).get('selected')).toBe('sub_a');
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'POST' && c.path === '/review/submissions/sub_a/claim')).toBe(true),
    );
    fireEvent.keyDown(window, { key: 'j' });
    expect(await screen.findByRole('heading', { name: 'Sunset' })).toBeTruthy();
    expect(new URLSearchParams(window.location.search).get('channel')).toBe('news');
  });

  it('holds a promotion for the undo window, then sends it with the CSRF header and moves on', async () => {
    const { calls } = api();
    setCsrfToken('csrf-123');
    // Long enough that a loaded machine still checks "not sent yet" inside the undo window.
    renderScreen(3_000);
    await screen.findByRole('heading', { name: 'Sunrise' });
    fireEvent.click(screen.getByRole('button', { name: 'Promote' }));
    expect((await screen.findByRole('status')).textContent).toContain('Promoted “Sunrise”');
    expect(await screen.findByRole('heading', { name: 'Sunset' })).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Review queue' })).queryByText('Sunrise')).toBeNull();
    expect(calls.some((c) => c.path.endsWith('/decision'))).toBe(false);
    await waitFor(
      () =>
        expect(calls.find((c) => c.path === '/review/submissions/sub_a/decision')?.body).toEqual({
          decision: 'promote',
        }),
      { timeout: 10_000 },
    );
    expect(calls.find((c) => c.path.endsWith('/decision'))?.headers['x-csrf-token']).toBe('csrf-123');
    setCsrfToken('');
  });

  it('undo (u) puts the frame back and nothing is sent', async () => {
    const { calls } = api();
    renderScreen(4_000);
    await screen.findByRole('heading', { name: 'Sunrise' });
    fireEvent.keyDown(window, { key: 'p' });
    await screen.findByRole('heading', { name: 'Sunset' });
    fireEvent.keyDown(window, { key: 'u' });
    expect(await screen.findByRole('heading', { name: 'Sunrise' })).toBeTruthy();
    await new Promise((r) => setTimeout(r, 4_100));
    expect(calls.some((c) => c.path.endsWith('/decision'))).toBe(false);
  });

  it('rejects with a reason from the list plus a note', async () => {
    const { calls } = api({ status: 200, body: detail(a, { status: 'rejected' }) });
    renderScreen(20);
    await screen.findByRole('heading', { name: 'Sunrise' });
    fireEvent.keyDown(window, { key: 'r' });
    const confirm = (await screen.findByRole('button', { name: 'Confirm rejection' })) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: /Low quality/ }));
    fireEvent.change(screen.getByLabelText('Note to the agent'), { target: { value: 'blurry' } });
    fireEvent.click(confirm);
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/decision'))?.body).toEqual({
        decision: 'reject',
        reason: 'Low quality',
        note: 'blurry',
      }),
    );
  });

  it('tries a page of the queue that failed to load again after 3 s, and then shows its rows', async () => {
    const moon = queueItem('sub_c', 'Moonrise', 'news');
    let secondPageAnswers = 0;
    const { calls } = stubApi((call) => {
      if (call.path.startsWith('/review/queue') && call.path.includes('cursor=page2')) {
        secondPageAnswers += 1;
        if (secondPageAnswers === 1) return { status: 503, body: { code: 'unavailable', detail: 'busy' } };
        return { status: 200, body: { items: [moon], next_cursor: null } };
      }
      if (call.path.startsWith('/review/queue')) return { status: 200, body: { items: [a, b], next_cursor: 'page2' } };
      if (call.path === '/review/submissions/sub_a') return { status: 200, body: detail(a) };
      if (call.path.endsWith('/claim')) return { status: 200, body: {} };
      return undefined;
    });
    stubQuietEventStream();
    renderScreen();
    const list = await screen.findByRole('list', { name: 'Review queue' });
    await waitFor(() => expect(secondPageAnswers).toBe(1));
    const failedAt = Date.now();
    expect(within(list).getByText('Sunset')).toBeTruthy();
    expect(await within(list).findByText('Moonrise', {}, { timeout: 10_000 })).toBeTruthy();
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(2_900);
    // Only the failed page was asked for again (the live stream is open, so the queue does not poll).
    const firstPages = calls.filter((c) => c.path.startsWith('/review/queue') && !c.path.includes('cursor='));
    expect(firstPages).toHaveLength(1);
    expect(secondPageAnswers).toBe(2);
  });

  it('says plainly when another reviewer decided first (409)', async () => {
    api({ status: 409, body: { code: 'invalid_transition', detail: 'already promoted' } });
    renderScreen(20);
    await screen.findByRole('heading', { name: 'Sunrise' });
    fireEvent.click(screen.getByRole('button', { name: 'Promote' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Another reviewer decided this frame first');
    expect(screen.getByRole('heading', { name: 'Sunset' })).toBeTruthy();
  });
});
