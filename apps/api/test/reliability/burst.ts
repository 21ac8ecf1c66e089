// Submissions sent at a steady rate while faults are injected on a timeline, then counted.
import { randomUUID } from 'node:crypto';
import { makePng } from '@framedesk/testing';
import { type ApiAnswer, type FrameInput, type RelStack, sleep, submitFrame } from './harness';

export interface Sent {
  readonly input: FrameInput & { readonly idempotencyKey: string };
  readonly answer: ApiAnswer;
  /** When it was sent, ms after the burst started. */
  readonly atMs?: number;
}

export type Outcome = 'accepted' | 'unavailable' | 'unexpected';

/** 202 with an id; 503 `service_unavailable` problem+json; anything else is a defect. */
export function classify(answer: ApiAnswer): Outcome {
  if (answer.status === 202 && typeof answer.body?.['id'] === 'string' && answer.body['id'].startsWith('sub_'))
    return 'accepted';
  if (
    answer.status === 503 &&
    answer.contentType.startsWith('application/problem+json') &&
    answer.body?.['code'] === 'service_unavailable'
  )
    return 'unavailable';
  return 'unexpected';
}

export interface TimelineEvent {
  readonly atMs: number;
  readonly name: string;
  run(): Promise<void>;
}

export interface BurstOptions {
  readonly count: number;
  readonly intervalMs: number;
  readonly agent: string;
  readonly channel: string;
  readonly png?: (i: number) => Buffer;
}

/**
 * Fires `count` submissions, one every `intervalMs` (without waiting for answers, like many
 * agents would), while the timeline's faults run in order at their times.
 */
export async function burst(
  stack: RelStack,
  key: string,
  options: BurstOptions,
  timeline: readonly TimelineEvent[] = [],
): Promise<Sent[]> {
  const started = Date.now();
  const faults = (async () => {
    for (const event of timeline) {
      await sleep(Math.max(0, started + event.atMs - Date.now()));
      await event.run();
    }
  })();
  const sends: Promise<Sent>[] = [];
  for (let i = 0; i < options.count; i++) {
    await sleep(Math.max(0, started + i * options.intervalMs - Date.now()));
    const input = {
      agent: options.agent,
      channel: options.channel,
      idempotencyKey: randomUUID(),
      png: options.png?.(i) ?? makePng(24, 16, { seed: i }),
      metadata: { agent_slug: options.agent, channel_slug: options.channel, date: '20260101', title: `burst ${i}` },
      timeoutMs: 45_000,
    };
    const atMs = Date.now() - started;
    sends.push(submitFrame(stack.apiUrl, key, input).then((answer) => ({ input, answer, atMs })));
  }
  const sent = await Promise.all(sends);
  await faults;
  return sent;
}

/** Attempts made by retryRefused in this test file, and what the failed ones answered. */
export const retryStats = { attempts: 0, failed: [] as string[] };

/** Retries every refused request with its own Idempotency-Key until it is accepted (or gives up). */
export async function retryRefused(
  stack: RelStack,
  key: string,
  sent: readonly Sent[],
  deadlineMs = 60_000,
): Promise<Sent[]> {
  const deadline = Date.now() + deadlineMs;
  const results: Sent[] = [];
  for (const item of sent.filter((s) => classify(s.answer) !== 'accepted')) {
    let answer = item.answer;
    while (Date.now() < deadline) {
      retryStats.attempts++;
      answer = await submitFrame(stack.apiUrl, key, item.input);
      if (answer.status !== 202)
        retryStats.failed.push(`${answer.status} ${String(answer.body?.['code'] ?? answer.error)}`);
      if (answer.status === 202) break;
      await sleep(500);
    }
    results.push({ input: item.input, answer });
  }
  return results;
}

export function counts(sent: readonly Sent[]): Record<Outcome, number> {
  const out: Record<Outcome, number> = { accepted: 0, unavailable: 0, unexpected: 0 };
  for (const s of sent) out[classify(s.answer)]++;
  return out;
}

/** A short description of every unexpected answer, for the assertion message. */
export function unexpected(sent: readonly Sent[]): string[] {
  return sent
    .filter((s) => classify(s.answer) === 'unexpected')
    .map((s) => `${s.answer.status} ${s.answer.error ?? JSON.stringify(s.answer.body)?.slice(0, 200)}`);
}

export function acceptedIds(sent: readonly Sent[]): string[] {
  return sent.filter((s) => s.answer.status === 202).map((s) => String(s.answer.body?.['id']));
}

/** How many were sent while a fault was in effect (between two timeline times). */
export function sentBetween(sent: readonly Sent[], fromMs: number, toMs: number): number {
  return sent.filter((s) => s.atMs !== undefined && s.atMs >= fromMs && s.atMs < toMs).length;
}
