// What the agent reads as its frame goes through the real worker and a reviewer: variants once
// processed, `failure` when processing fails, `review` once a reviewer decided.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReviewer } from '@framedesk/access';
import { makePng, makePngBomb } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';
import { ReviewerClient } from './review-harness';

let api: TestApi;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('bot', ['news']);
  await createReviewer(api.deps.db, {
    email: 'rita@example.com',
    password: 'a-long-enough-password',
    channels: ['news'],
  });
  await api.startWorker();
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

async function submit(title: string, image: Buffer): Promise<string> {
  const res = await api.call('POST', '/v1/frame-submissions', {
    key,
    headers: { 'idempotency-key': randomUUID() },
    body: frameForm({ agent_slug: 'bot', channel_slug: 'news', date: '20261122', title }, image),
  });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

/** Polls the agent API until the submission reaches `status`. */
async function reaches(id: string, status: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
    expect(res.status).toBe(200);
    if (res.body.status === status) return res.body;
    if (Date.now() > deadline) throw new Error(`${id} is ${res.body.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('GET /v1/frame-submissions/{id} through processing and review', () => {
  it('shows failure and review once they exist, and signed variant URLs once processed', async () => {
    const good = await submit('Harbour', makePng(64, 48, { seed: 7 }));
    const bomb = await submit('Bomb', makePngBomb());

    const failed = await reaches(bomb, 'failed');
    expect(failed.failure).toEqual({ code: 'image_too_large', message: expect.any(String) });
    expect(failed.review).toBeNull();
    expect(failed.variants).toEqual({});

    const processed = await reaches(good, 'needs_review');
    expect(processed.failure).toBeNull();
    expect(processed.review).toBeNull();
    const url = new URL(processed.variants.thumbnail as string);
    expect(url.pathname).toBe(`/media/${good}/thumbnail`);
    const media = await fetch(url);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await media.arrayBuffer());
    expect([bytes.subarray(0, 4).toString(), bytes.subarray(8, 12).toString()]).toEqual(['RIFF', 'WEBP']);
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    const tampered = await api.call('GET', url.pathname + url.search);
    expect([tampered.status, tampered.body.code]).toEqual([403, 'forbidden']);

    const reviewer = new ReviewerClient(api.url);
    expect((await reviewer.login('rita@example.com', 'a-long-enough-password')).status).toBe(201);
    const decided = await reviewer.call('POST', `/review/submissions/${good}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
    });
    expect(decided.status).toBe(200);
    const rejected = await reaches(good, 'rejected');
    expect(rejected.review).toEqual({
      decision: 'rejected',
      reason: 'Low quality',
      reviewed_at: expect.any(String),
      decided_at: rejected.review.reviewed_at,
      decided_by: 'person',
      rule: null,
      note: null,
      regions: [],
      moments: [],
    });
    expect(Date.parse(rejected.review.reviewed_at)).not.toBeNaN();
    expect(rejected.failure).toBeNull();
    expect(api.contractViolations()).toEqual([]);
  });
});
