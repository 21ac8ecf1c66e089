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

/** The most of an answer read: a longer one is malformed, and the rest of it is not read. */
export const MAX_SCORING_ANSWER_BYTES = 64 * 1024;

/**
 * The answer's body, at most `limit` bytes; null when it is longer (the rest is cancelled, not
 * read). A body that fails midway throws, as `fetch` does.
 */
async function readCapped(response: Response, limit: number): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A client for SCORING_URL: multipart/form-data with `id`, `agent`, `channel` and `image`.
 * Bounded: a redirect is not followed (the image is never sent anywhere but SCORING_URL; a 3xx is
 * an error), the answer is read up to MAX_SCORING_ANSWER_BYTES (a longer one is malformed), and the
 * body of a failed answer is cancelled, not left to hold the connection.
 */
export function scoringClient(options: { url: string; timeoutMs: number; maxAnswerBytes?: number }): ScoringClient {
  const limit = options.maxAnswerBytes ?? MAX_SCORING_ANSWER_BYTES;
  return async (request) => {
    const form = new FormData();
    form.set('id', request.id);
    form.set('agent', request.agent);
    form.set('channel', request.channel);
    form.set('image', new Blob([request.image], { type: request.contentType }), `${request.id}.webp`);
    let bytes: Buffer | null;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        body: form,
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return { ok: false, reason: 'error' };
      }
      bytes = await readCapped(response, limit);
    } catch (error) {
      const name = (error as { name?: string } | null)?.name;
      return { ok: false, reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'error' };
    }
    const scores = bytes === null ? null : readScores(parseJson(bytes));
    return scores ? { ok: true, scores } : { ok: false, reason: 'malformed' };
  };
}

/** Where a frame's scoring answer is kept (libs/db `policies.recordedScoring` / `recordScoring`). */
export interface ScoringRecord {
  recordedScoring(submissionId: string): Promise<Record<string, unknown> | null>;
  recordScoring(submissionId: string, result: Record<string, unknown>): Promise<void>;
}

const REASONS = ['timeout', 'error', 'malformed'] as const;

function recordedResult(data: Record<string, unknown> | null): ScoringResult | null {
  if (!data) return null;
  if (data['ok'] === true) {
    const scores = readScores(data);
    return scores ? { ok: true, scores } : null;
  }
  const reason = REASONS.find((r) => r === data['reason']);
  return reason ? { ok: false, reason } : null;
}

/**
 * The scoring hook asked at most once per frame: a provider's webhook is retried (a timeout on
 * its side, a replay), and each retry must not post the image again. The first answer (a failure
 * too) is recorded on the frame and read back by every later try; tries at the same time in this
 * process share one call. `called` sees only real calls (the scoring metric).
 */
export function scoringOncePerFrame(
  client: ScoringClient,
  record: ScoringRecord,
  called?: (result: ScoringResult) => void,
): ScoringClient {
  const running = new Map<string, Promise<ScoringResult>>();
  return (request) => {
    const shared = running.get(request.id);
    if (shared) return shared;
    const call = (async (): Promise<ScoringResult> => {
      const recorded = recordedResult(await record.recordedScoring(request.id));
      if (recorded) return recorded;
      const result = await client(request);
      called?.(result);
      await record.recordScoring(request.id, { ...result });
      return result;
    })().finally(() => running.delete(request.id));
    running.set(request.id, call);
    return call;
  };
}
