import type { ReviewMoment } from '@framedesk/contracts';
import type {
  BatchResult,
  ChannelCount,
  DecisionInput,
  InternalNote,
  Ops,
  OpsWorkers,
  QueuePage,
  ReviewStats,
  Session,
  SubmissionDetail,
  TimelinePage,
  Visibility,
} from './types';

/** One problem a problem+json answer lists (`errors`); `policy_invalid` names the rule and column. */
export interface ProblemItem {
  readonly pointer: string;
  readonly detail: string;
  readonly rule?: number | null;
  readonly name?: string | null;
  readonly message?: string;
  readonly line?: number;
  readonly column?: number;
}

/** A problem+json answer from the API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: readonly ProblemItem[] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

let csrfToken = '';

/** Every write carries the session's CSRF token; the session query sets it. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** One JSON call to the review API; a problem+json answer becomes an ApiError. */
export async function request<T>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...init,
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const problem = (json ?? {}) as { code?: string; detail?: string; errors?: ProblemItem[] };
    throw new ApiError(
      res.status,
      problem.code ?? 'error',
      problem.detail ?? `Request failed (${res.status}).`,
      Array.isArray(problem.errors) ? problem.errors : [],
    );
  }
  return json as T;
}

const enc = encodeURIComponent;

export const api = {
  session: () => request<Session>('GET', '/review/session'),
  login: (email: string, password: string) => request<Session>('POST', '/review/session', { email, password }),
  logout: () => request<void>('DELETE', '/review/session'),
  queue: (query: string) => request<QueuePage>('GET', `/review/queue${query ? `?${query}` : ''}`),
  channels: () => request<{ channels: ChannelCount[] }>('GET', '/review/channels'),
  stats: (channel: string | null) =>
    request<ReviewStats>('GET', `/review/stats${channel ? `?channel=${enc(channel)}` : ''}`),
  submission: (id: string) => request<SubmissionDetail>('GET', `/review/submissions/${enc(id)}`),
  claim: (id: string) => request<unknown>('POST', `/review/submissions/${enc(id)}/claim`),
  release: (id: string) => request<void>('DELETE', `/review/submissions/${enc(id)}/claim`),
  /** `keepalive` lets a decision still pending when the page closes reach the server. */
  decide: (id: string, decision: DecisionInput, keepalive = false) =>
    request<SubmissionDetail>(
      'POST',
      `/review/submissions/${enc(id)}/decision`,
      decision,
      keepalive ? { keepalive: true } : {},
    ),
  /** One decision for several frames; the answer says per frame whether it was decided. */
  decideBatch: (ids: readonly string[], decision: DecisionInput, keepalive = false) =>
    request<{ results: BatchResult[] }>(
      'POST',
      '/review/decisions',
      { ids, ...decision },
      keepalive ? { keepalive: true } : {},
    ),
  setVisibility: (id: string, visibility: Visibility) =>
    request<SubmissionDetail>('PATCH', `/review/submissions/${enc(id)}`, { visibility }),
  timeline: (slug: string, cursor?: string | null, limit?: number) => {
    const qs = new URLSearchParams({ ...(cursor ? { cursor } : {}), ...(limit ? { limit: String(limit) } : {}) });
    return request<TimelinePage>('GET', `/review/channels/${enc(slug)}/timeline${qs.size ? `?${qs}` : ''}`);
  },
  ops: (query = '') => request<Ops>('GET', `/review/ops${query ? `?${query}` : ''}`),
  opsWorkers: () => request<OpsWorkers>('GET', '/review/ops/workers'),
  /** Reviewers' internal notes on a frame: never shown to the agent. */
  addNote: (id: string, body: string, moments: readonly ReviewMoment[] = []) =>
    request<InternalNote>('POST', `/review/submissions/${enc(id)}/notes`, {
      body,
      ...(moments.length > 0 ? { moments } : {}),
    }),
  retry: (id: string) => request<unknown>('POST', `/review/submissions/${enc(id)}/retry`),
};

/** What a reviewer reads when a decision loses a race (HTTP 409). */
export function conflictMessage(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  if (error.code === 'claimed_by_other') return 'Another reviewer is reviewing this frame; it was left for them.';
  if (error.code === 'not_promotion_eligible')
    return 'Only promotion_eligible frames can be promoted; change the visibility first.';
  return 'Another reviewer decided this frame first';
}
