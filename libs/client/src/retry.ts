import { errorFromResponse, FramedeskError } from './errors';

export interface RetryOptions {
  /** Attempts per logical call, the first included (default 5). */
  readonly attempts?: number;
  /** First back-off step; doubles per attempt, with jitter (default 250 ms). */
  readonly baseDelayMs?: number;
  /** Cap of one back-off step (default 10 s). */
  readonly maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited out: the error is thrown at once (default 60 s). */
  readonly maxRetryAfterMs?: number;
  /** Replaceable for tests. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

export type RetryPolicy = Required<RetryOptions>;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return {
    attempts: Math.max(1, options.attempts ?? 5),
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 10_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    sleep: options.sleep ?? sleep,
    random: options.random ?? Math.random,
  };
}

/** Exponential back-off with "equal jitter": half fixed, half random, so clients spread out. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (policy.random() * step) / 2);
}

/** The answers that say "the same request may succeed later" (DESIGN.md §4 error table). */
export function isRetryable(error: FramedeskError): boolean {
  return (
    error.status === 429 || error.status === 503 || (error.status === 409 && error.code === 'idempotency_key_in_use')
  );
}

/**
 * Calls `send` until it answers 2xx, a non-retryable error, or the attempts run out. Network
 * errors are retried too: every caller sends an Idempotency-Key or a safe request, so a
 * request that reached the server before the connection broke is not repeated twice over.
 */
export async function withRetries(
  send: () => Promise<Response>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  retryable: (error: FramedeskError) => boolean = isRetryable,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await send();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (attempt >= policy.attempts) {
        throw new FramedeskError({
          status: 0,
          code: 'network_error',
          detail: `No answer after ${attempt} attempts: ${describeCause(cause)}`,
          cause,
        });
      }
      await policy.sleep(backoffMs(policy, attempt), signal);
      continue;
    }
    if (response.ok) return response;
    const error = await errorFromResponse(response);
    if (!retryable(error) || attempt >= policy.attempts) throw error;
    if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) throw error;
    // Retry-After is a floor: wait it out, plus a little jitter so a crowd does not return at once.
    const delay =
      error.retryAfterMs !== undefined
        ? error.retryAfterMs + Math.round(policy.random() * policy.baseDelayMs)
        : backoffMs(policy, attempt);
    await policy.sleep(delay, signal);
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    return cause.message + inner;
  }
  return String(cause);
}
