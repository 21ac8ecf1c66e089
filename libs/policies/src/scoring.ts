/**
 * The optional scoring hook (docs/policies.md): the worker posts the frame's preview variant, with
 * its id, agent and channel, to SCORING_URL and reads back `{"scores": {"name": number, …}}`. A
 * timeout, an error or a malformed answer is never read as a score: the rules see none.
 */
export type ScoringResult =
  | { readonly ok: true; readonly scores: Readonly<Record<string, number>> }
  | { readonly ok: false; readonly reason: 'timeout' | 'error' | 'malformed' };

export interface ScoringRequest {
  readonly id: string;
  readonly agent: string;
  readonly channel: string;
  readonly image: Buffer;
  readonly contentType: string;
}

export type ScoringClient = (request: ScoringRequest) => Promise<ScoringResult>;

/** At most this many scores are read from one answer. */
const MAX_SCORES = 50;

/** `{"scores": {"name": finite number, …}}` and nothing else counts. */
export function readScores(body: unknown): Readonly<Record<string, number>> | null {
  const scores = (body as { scores?: unknown } | null)?.scores;
  if (typeof scores !== 'object' || scores === null || Array.isArray(scores)) return null;
  const entries = Object.entries(scores);
  if (entries.length > MAX_SCORES) return null;
  for (const [name, value] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) || typeof value !== 'number' || !Number.isFinite(value))
      return null;
  }
  return Object.fromEntries(entries) as Record<string, number>;
}

/** A client for SCORING_URL: multipart/form-data with `id`, `agent`, `channel` and `image`. */
export function scoringClient(options: { url: string; timeoutMs: number }): ScoringClient {
  return async (request) => {
    const form = new FormData();
    form.set('id', request.id);
    form.set('agent', request.agent);
    form.set('channel', request.channel);
    form.set('image', new Blob([request.image], { type: request.contentType }), `${request.id}.webp`);
    let body: unknown;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        body: form,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (!response.ok) return { ok: false, reason: 'error' };
      body = await response.json().catch(() => undefined);
    } catch (error) {
      const name = (error as { name?: string } | null)?.name;
      return { ok: false, reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'error' };
    }
    const scores = readScores(body);
    return scores ? { ok: true, scores } : { ok: false, reason: 'malformed' };
  };
}
