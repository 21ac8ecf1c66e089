import { vi } from 'vitest';
import type { QueueItem, SubmissionDetail } from '../api/types';

export interface FakeCall {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

type Handler = (call: FakeCall) => { status: number; body?: unknown } | undefined;

/** Stubs fetch with a tiny router; records every call. */
export function stubApi(handler: Handler) {
  const calls: FakeCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://workbench.local');
    const call: FakeCall = {
      method: init.method ?? 'GET',
      path: url.pathname + url.search,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      headers: (init.headers ?? {}) as Record<string, string>,
    };
    calls.push(call);
    const answer = handler(call) ?? { status: 404, body: { code: 'not_found', detail: 'no fake for ' + call.path } };
    if (answer.status === 204) return new Response(null, { status: 204 });
    return new Response(JSON.stringify(answer.body ?? {}), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/**
 * Stubs EventSource with a live-event stream that opens at once and stays quiet: screens then do
 * not poll (useReviewEvents), so nothing but the code under test asks the API again.
 */
export function stubQuietEventStream() {
  class QuietEventSource {
    onopen: (() => void) | null = null;
    onerror: (() => void) | null = null;
    constructor(readonly url: string) {
      setTimeout(() => this.onopen?.(), 0);
    }
    addEventListener(): void {}
    close(): void {}
  }
  vi.stubGlobal('EventSource', QuietEventSource);
}

export function queueItem(id: string, title: string, channel = 'news'): QueueItem {
  return {
    id,
    title,
    channel_slug: channel,
    agent_slug: 'bot',
    media_type: 'image',
    date: '20260101',
    visibility: 'promotion_eligible',
    created_at: '2026-01-01T00:00:00.000Z',
    thumbnail_url: `/media/${id}/thumbnail`,
    claim: null,
  };
}

export function detail(item: QueueItem, change: Partial<SubmissionDetail> = {}): SubmissionDetail {
  return {
    ...item,
    status: 'needs_review',
    caption: 'A caption',
    external_ref: null,
    updated_at: item.created_at,
    width: 800,
    height: 600,
    duration_ms: null,
    click_zones: [{ x: 0.1, y: 0.2, width: 0.3, height: 0.4, url: 'https://example.com/buy', label: 'Buy' }],
    image_url: `/media/${item.id}/preview`,
    variants: { preview: `/media/${item.id}/preview` },
    poster_url: null,
    video_url: null,
    failure: null,
    review: null,
    purged_at: null,
    events: [
      {
        id: '1',
        type: 'transition',
        from: null,
        to: 'received',
        actor_type: 'agent',
        actor: 'bot',
        reason: null,
        created_at: item.created_at,
      },
    ],
    similar: [],
    internal_notes: [],
    ...change,
  };
}
