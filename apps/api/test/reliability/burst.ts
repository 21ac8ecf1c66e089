// Submissions sent at a steady rate while faults are injected on a timeline, then counted.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { makePng } from '@framedesk/testing';
import {
  type ApiAnswer,
  checkIntegrity,
  type FrameInput,
  type Integrity,
  type RelStack,
  sleep,
  submitFrame,
  waitForSettled,
} from './harness';

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

export interface OutageRun {
  readonly sent: Sent[];
  /** How the first tries were answered. */
  readonly first: Record<Outcome, number>;
  /** The refused ones, sent again with their Idempotency-Key once the fault was over. */
  readonly retried: Sent[];
  /** Every submission acknowledged, on its first try or a retry. */
  readonly ids: string[];
  readonly statuses: Map<string, string>;
  /** Of `ids`, those that reached needs_review. */
  readonly settled: string[];
  readonly integrity: Integrity;
  /** "id=status" of every acknowledged submission that did not reach needs_review. */
  readonly notSettled: string;
  /** What the outage tests report alike (reportFigures). */
  readonly figures: Record<string, unknown>;
}

/**
 * The outage tests' run (a shared service down mid-burst): 40 submissions of agent `bot` to
 * `news`, one every 100 ms, while `timeline` injects the fault; at least 6 must be sent within
 * `window` (ms after the start, when the fault is in effect). Then every refused one is retried
 * until accepted (within `retryDeadlineMs`), and every acknowledged one is waited for.
 */
export async function burstThroughOutage(
  stack: RelStack,
  key: string,
  options: { timeline: readonly TimelineEvent[]; window: readonly [number, number]; retryDeadlineMs?: number },
): Promise<OutageRun> {
  const sent = await burst(stack, key, { count: 40, intervalMs: 100, agent: 'bot', channel: 'news' }, options.timeline);
  const first = counts(sent);
  const sentDuringOutage = sentBetween(sent, ...options.window);
  expect(sentDuringOutage, 'requests sent while the fault was in effect').toBeGreaterThan(5);

  await sleep(1_000);
  const retried = await retryRefused(stack, key, sent, options.retryDeadlineMs);
  expect(
    retried.every((r) => r.answer.status === 202),
    'refused requests accepted on retry',
  ).toBe(true);

  const ids = [...new Set([...acceptedIds(sent), ...acceptedIds(retried)])];
  const statuses = await waitForSettled(stack, ids, 60_000);
  const settled = ids.filter((id) => statuses.get(id) === 'needs_review');
  const integrity = await checkIntegrity(stack);
  return {
    sent,
    first,
    retried,
    ids,
    statuses,
    settled,
    integrity,
    notSettled: ids
      .filter((id) => statuses.get(id) !== 'needs_review')
      .map((id) => `${id}=${statuses.get(id)}`)
      .join(', '),
    figures: {
      requests: sent.length,
      sent_during_outage: sentDuringOutage,
      accepted_first_try: first.accepted,
      refused_503: first.unavailable,
      unexpected: first.unexpected,
      server_errors_500: sent.filter((s) => s.answer.status === 500).length,
      retry_attempts: retryStats.attempts,
      retry_failures: Object.fromEntries(
        [...new Set(retryStats.failed)].map((f) => [f, retryStats.failed.filter((x) => x === f).length]),
      ),
      accepted_total: ids.length,
      reached_final: settled.length,
      lost: ids.length - settled.length,
    },
  };
}
