// The fleet's clients, each as a well-behaved one would be: agents submitting frames with an
// Idempotency-Key and retrying with the same key, an MCP client, tus uploaders that resume from
// the offset the server reports (on whichever instance the balancer picks: fleet-tus.ts), pollers,
// and two reviewers deciding one and several frames with the live stream open (Last-Event-ID).
import { randomUUID } from 'node:crypto';
import { makePng, ReviewerClient } from '@framedesk/testing';
import type { Fleet } from './fleet';
import { FLEET_CHANNEL, REVIEWER_PASSWORD } from './fleet';
import { sleep } from './harness';

export interface Answer {
  /** 0: no answer (refused, reset, time-out). */
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown> | null;
}

/** What the clients saw, over the whole run. */
export class Tally {
  readonly byStatus: Record<string, number> = {};
  retries = 0;
  unavailableWithRetryAfter = 0;
  unavailableWithoutRetryAfter = 0;
  /** Every 500, and every answer no client of ours expects (method, path, status, code). */
  readonly serverErrors: string[] = [];
  readonly unexpected: string[] = [];
  requests = 0;

  record(what: string, answer: Answer): void {
    this.requests++;
    this.byStatus[answer.status] = (this.byStatus[answer.status] ?? 0) + 1;
    if (answer.status === 503) {
      if (answer.headers.get('retry-after')) this.unavailableWithRetryAfter++;
      else this.unavailableWithoutRetryAfter++;
    }
    if (answer.status === 500) this.serverErrors.push(describeAnswer(what, answer));
  }
}

export interface Acked {
  readonly id: string;
  readonly kind: 'image' | 'mcp' | 'video';
  readonly key: string;
  /**
   * The same request sent again, as the agent's retry with the same Idempotency-Key would be: its
   * status and the id it names (a drill that lost the acknowledged row asks what the retry gets).
   */
  readonly resend?: () => Promise<{ status: number; id?: string }>;
}

export interface Decided {
  readonly id: string;
  readonly status: 'promoted' | 'rejected';
  readonly reviewer: string;
}

export interface LiveEvent {
  readonly id: string;
  readonly data: { kind: string; id: string; status?: string };
  /** When the client received it (ms since the epoch). */
  readonly at?: number;
}

export const NO_HEADERS = new Headers();

/**
 * An answer as a failure report reads it: status, the problem's code and detail (a HEAD answer
 * has none: its status alone speaks), Retry-After, the request id to find it in the API's log,
 * and when it came (to place it among the faults).
 */
export function describeAnswer(what: string, answer: Answer): string {
  const code = answer.body?.['code'];
  const detail = answer.body?.['detail'];
  return [
    what,
    answer.status,
    code === undefined ? '' : String(code),
    detail === undefined ? '' : JSON.stringify(detail),
    answer.headers.get('retry-after') ? `retry-after=${answer.headers.get('retry-after')}` : '',
    answer.headers.get('x-request-id') ? `request=${answer.headers.get('x-request-id')}` : '',
    `at=${new Date().toISOString()}`,
  ]
    .filter(Boolean)
    .join(' ');
}

export async function send(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    return { status: response.status, headers: response.headers, body };
  } catch {
    return { status: 0, headers: NO_HEADERS, body: null };
  }
}

/** No answer, 5xx, a key still in flight or an upload locked by another instance: try again. */
export const retryable = (a: Answer) =>
  a.status === 0 ||
  a.status >= 500 ||
  a.status === 423 ||
  (a.status === 409 && a.body?.['code'] !== 'invalid_transition');

export const pause = (a: Answer) => Math.min(2_000, Number(a.headers.get('retry-after') ?? 0) * 1000 || 300);

/** Sends until the answer is not retryable (or `until` passes); every answer is recorded. */
export async function untilAnswered(
  tally: Tally,
  what: string,
  until: number,
  attempt: () => Promise<Answer>,
  retry: (a: Answer) => boolean = retryable,
) {
  for (let tries = 0; ; tries++) {
    const answer = await attempt();
    tally.record(what, answer);
    if (!retry(answer) || Date.now() > until) return answer;
    tally.retries++;
    await sleep(pause(answer));
  }
}

export interface LoadContext {
  readonly fleet: Fleet;
  readonly tally: Tally;
  readonly acked: Acked[];
  /** Clients stop starting new work at this time (moved on if the fault rotation needs longer). */
  stopAt: number;
  /** Retries give up at this time (a fault must be over long before). */
  readonly giveUpAt: number;
}

const date = '20260101';

export async function imageAgent(ctx: LoadContext, n: number): Promise<void> {
  const { fleet, tally } = ctx;
  for (let i = 0; Date.now() < ctx.stopAt; i++) {
    const key = randomUUID();
    const png = makePng(48, 36, { seed: n * 100_000 + i });
    const post = () => {
      const form = new FormData();
      const meta = { agent_slug: 'cam', channel_slug: FLEET_CHANNEL, date, title: `a${n}-${i}` };
      form.append('metadata', new Blob([JSON.stringify(meta)], { type: 'application/json' }));
      form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'f.png');
      return send(`${fleet.url}/v1/frame-submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fleet.agentKey}`, 'idempotency-key': key },
        body: form,
      });
    };
    const answer = await untilAnswered(tally, 'POST /v1/frame-submissions', ctx.giveUpAt, post);
    const resend = async () => {
      const a = await post();
      return { status: a.status, id: a.body?.['id'] === undefined ? undefined : String(a.body['id']) };
    };
    if (answer.status === 202) ctx.acked.push({ id: String(answer.body?.['id']), kind: 'image', key, resend });
    else tally.unexpected.push(describeAnswer('image', answer));
    await sleep(150);
  }
}

export async function mcpAgent(ctx: LoadContext): Promise<void> {
  const { fleet, tally } = ctx;
  for (let i = 0; Date.now() < ctx.stopAt; i++) {
    const key = randomUUID();
    const image = makePng(40, 30, { seed: 900_000 + i }).toString('base64');
    const args = { channel_slug: FLEET_CHANNEL, date, title: `mcp-${i}`, image_base64: image, idempotency_key: key };
    let result: Record<string, unknown> | undefined;
    const call = async () => {
      const a = await send(`${fleet.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fleet.agentKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'submit_frame', arguments: args },
        }),
      });
      result = (a.body?.['result'] as Record<string, unknown> | undefined) ?? undefined;
      const content = result?.['structuredContent'] as Record<string, unknown> | undefined;
      // A tool error carries the HTTP status and code the REST door would have answered.
      if (a.status === 200 && result?.['isError']) {
        const retryAfter = content?.['retry_after_seconds'];
        const headers = retryAfter === undefined ? NO_HEADERS : new Headers({ 'retry-after': String(retryAfter) });
        return { status: Number(content?.['status'] ?? 0), headers, body: content ?? null };
      }
      return a;
    };
    const answer = await untilAnswered(tally, 'POST /mcp submit_frame', ctx.giveUpAt, call);
    const idOf = () => (result?.['structuredContent'] as Record<string, unknown> | undefined)?.['id'];
    const id = idOf();
    const resend = async () => {
      const a = await call();
      const again = idOf();
      return { status: a.status, id: typeof again === 'string' ? again : undefined };
    };
    if (answer.status === 200 && typeof id === 'string') ctx.acked.push({ id, kind: 'mcp', key, resend });
    else tally.unexpected.push(describeAnswer('mcp', answer));
    await sleep(400);
  }
}

export async function poller(ctx: LoadContext): Promise<void> {
  let i = 0;
  while (Date.now() < ctx.stopAt) {
    const pick = ctx.acked[(i++ * 7919) % Math.max(1, ctx.acked.length)];
    if (pick) {
      const a = await send(`${ctx.fleet.url}/v1/frame-submissions/${pick.id}`, {
        headers: { authorization: `Bearer ${ctx.fleet.agentKey}` },
      });
      ctx.tally.record('GET /v1/frame-submissions/:id', a);
      if (a.status !== 0 && a.status !== 200 && a.status !== 503) ctx.tally.unexpected.push(describeAnswer('poll', a));
    }
    await sleep(200);
  }
}

/** A reviewer through the balancer: signs in (again, if a fault ended the session's request), decides. */
export async function reviewer(ctx: LoadContext, email: string, decided: Decided[], n: number): Promise<void> {
  const { fleet, tally } = ctx;
  const client = new ReviewerClient(fleet.url);
  const login = await untilAnswered(tally, 'POST /review/session', ctx.giveUpAt, () =>
    client.login(email, REVIEWER_PASSWORD).then(asAnswer, () => failed),
  );
  if (login.status !== 201) return void tally.unexpected.push(describeAnswer('login', login));
  for (let round = 0; Date.now() < ctx.stopAt; round++) {
    const queue = await untilAnswered(tally, 'GET /review/queue', ctx.giveUpAt, () =>
      client.call('GET', '/review/queue?limit=20').then(asAnswer, () => failed),
    );
    // The queue lists frames waiting for a decision.
    const items = (queue.body?.['items'] as { id: string }[] | undefined) ?? [];
    // Each reviewer takes its own half, with a little overlap, so some decisions race.
    const mine = items.filter((_, i) => i % 2 === n || i % 5 === 0).slice(0, 4);
    if (mine.length > 0) {
      if (round % 2 === 0) {
        for (const item of mine.slice(0, 2)) {
          const a = await untilAnswered(tally, 'POST /review/submissions/:id/decision', ctx.giveUpAt, () =>
            client
              .call('POST', `/review/submissions/${item.id}/decision`, { decision: 'promote' })
              .then(asAnswer, () => failed),
          );
          if (a.status === 200) decided.push({ id: item.id, status: 'promoted', reviewer: email });
          else if (a.status !== 409 && a.status !== 404) tally.unexpected.push(describeAnswer('decision', a));
        }
      } else {
        const body = { ids: mine.map((m) => m.id), decision: 'reject', reason: 'Duplicate' };
        const a = await untilAnswered(tally, 'POST /review/decisions', ctx.giveUpAt, () =>
          client.call('POST', '/review/decisions', body).then(asAnswer, () => failed),
        );
        if (a.status !== 200) tally.unexpected.push(describeAnswer('bulk', a));
        for (const r of (a.body?.['results'] as { id: string; outcome: string }[] | undefined) ?? [])
          if (r.outcome === 'rejected') decided.push({ id: r.id, status: 'rejected', reviewer: email });
      }
    }
    await sleep(700);
  }
}

const failed: Answer = { status: 0, headers: NO_HEADERS, body: null };

async function asAnswer(response: Response): Promise<Answer> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * The workbench's live view: `GET /review/events` through the balancer, reconnecting after any
 * drop with the last event id it saw. Collects every event until `stopAt` plus `tailMs`.
 */
export async function liveStream(
  ctx: LoadContext,
  email: string,
  events: LiveEvent[],
  /** `resyncs`: `event: resync` received (the server's Redis switched; a screen reads everything again). */
  stats: { reconnects: number; resyncs?: number },
  until: () => boolean,
): Promise<void> {
  const client = new ReviewerClient(ctx.fleet.url);
  while ((await client.login(email, REVIEWER_PASSWORD).catch(() => null))?.status !== 201) await sleep(300);
  let last = '';
  while (!until()) {
    const controller = new AbortController();
    const stop = setInterval(() => until() && controller.abort(), 200);
    try {
      const res = await fetch(`${ctx.fleet.url}/review/events`, {
        headers: { cookie: client.cookie, ...(last ? { 'last-event-id': last } : {}) },
        signal: controller.signal,
      });
      if (res.status !== 200) {
        ctx.tally.record('GET /review/events', await asAnswer(res));
        await sleep(300);
        continue;
      }
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (id && data && /^event: change$/m.test(block)) {
            events.push({ id, data: JSON.parse(data) as LiveEvent['data'], at: Date.now() });
            last = id;
          } else if (id) last = id;
          else if (/^event: resync$/m.test(block)) stats.resyncs = (stats.resyncs ?? 0) + 1;
        }
      }
    } catch {
      // dropped by a fault or stopped: reconnect with Last-Event-ID
    } finally {
      clearInterval(stop);
    }
    if (!until()) {
      stats.reconnects++;
      await sleep(200);
    }
  }
}
