import { signMediaUrl } from '@framedesk/access';
import { readImageInfo } from '@framedesk/media';
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_REVIEW_RETRY_SECONDS } from '../src/http/public-on-request';
import { type ReviewHarness, startReviewHarness } from './review-harness';

/**
 * Issue 39: `public` is made once a frame is promoted. The agent's GET lists it from review on;
 * its URL, asked before the variant exists, makes it (a promoted frame) or answers 202 with
 * Retry-After (a frame in review), never 404 or 500 while the frame can still be delivered.
 * No worker runs here: what the API does by itself.
 */
describe('the public variant before it exists (API in process, real PostgreSQL, Redis and storage)', () => {
  let h: ReviewHarness;

  const publicUrl = (id: string) =>
    new URL(
      signMediaUrl(h.deps.settings.SESSION_SECRET, { submissionId: id, name: 'public' }, new Date(Date.now() + 60_000)),
      h.url,
    ).toString();
  const agentGet = async (id: string) => {
    const row = await h.db.repos.submissions.findById(id);
    return h.deps.submissions.getSubmission({ apiKeyId: 'key', agentId: row!.agentId, agentSlug: 'bot' }, id);
  };

  /** A frame in review as processing leaves it: original, thumbnail and preview, no public. */
  async function inReview(width: number, height: number): Promise<string> {
    const id = await h.seedSubmission();
    await h.seedMedia(id, 'original', 'original', makePng(width, height, { seed: width }), 'image/png');
    for (const name of ['thumbnail', 'preview']) await h.seedMedia(id, 'variant', name, makePng(8, 8), 'image/webp');
    return id;
  }
  const decide = async (id: string, to: 'promoted' | 'rejected') =>
    expect((await h.db.transition({ id, to, actor: { type: 'reviewer' }, onlyFrom: ['needs_review'] })).ok).toBe(true);

  beforeAll(async () => {
    h = await startReviewHarness();
  });
  afterAll(() => h?.close());

  it('a frame in review lists public; its URL answers 202 with Retry-After and makes nothing', async () => {
    const id = await inReview(320, 200);
    expect(Object.keys((await agentGet(id)).variants).sort()).toEqual(['preview', 'public', 'thumbnail']);
    const res = await fetch(publicUrl(id));
    expect(res.status).toBe(202);
    expect(res.headers.get('retry-after')).toBe(String(IN_REVIEW_RETRY_SECONDS));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ status: 'pending', retry_after_seconds: IN_REVIEW_RETRY_SECONDS });
    expect(await h.db.repos.mediaObjects.find(id, 'variant', 'public')).toBeNull();
  });

  it('a promotion enqueues the job; the URL asked first makes public on the request and answers with the image', async () => {
    const id = await inReview(640, 360);
    await decide(id, 'promoted');
    // The promotion hook: the job for the workers, whoever promoted.
    expect(await h.deps.queues.isLive('image.publish', { submissionId: id })).toBe(true);
    const res = await fetch(publicUrl(id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(await readImageInfo(bytes)).toMatchObject({ format: 'webp', width: 640, height: 360 });
    const row = await h.db.repos.mediaObjects.find(id, 'variant', 'public');
    expect(Number(row?.byteSize)).toBe(bytes.length);
    // Served from storage from now on: the same bytes.
    expect(Buffer.from(await (await fetch(publicUrl(id))).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('a rejected frame: no job, no public listed, its old URL answers 404 and nothing is made', async () => {
    const id = await inReview(300, 300);
    const url = publicUrl(id); // issued while the frame was in review
    await decide(id, 'rejected');
    expect(await h.deps.queues.jobState('image.publish', { submissionId: id })).toBe('missing');
    expect(Object.keys((await agentGet(id)).variants).sort()).toEqual(['preview', 'thumbnail']);
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
    expect(await h.db.repos.mediaObjects.find(id, 'variant', 'public')).toBeNull();
  });
});
