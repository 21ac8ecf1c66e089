// Near-duplicates in the review API: fingerprints stored the way the worker stores them, the
// search in PostgreSQL, `similar` / `similar_count`, and a rejection that names the original.
import { encodePicture, generatePicture, rerender } from '@framedesk/media';
import { fingerprintFrame } from '@framedesk/submissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';

interface Similar {
  id: string;
  title: string | null;
  status: string;
  channel_slug: string;
  distance: number;
  thumbnail_url: string | null;
  created_at: string;
}

describe('near-duplicates in the review API', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  const ids: Record<string, string> = {};

  const frame = async (name: string, png: Buffer, channel = 'news') => {
    ids[name] = await h.seedSubmission({ title: name, channel });
    expect(await fingerprintFrame(h.db, ids[name], png)).toBe(true);
  };
  const detail = async (name: string) => {
    const res = await alice.call('GET', `/review/submissions/${ids[name]}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { similar: Similar[] };
  };

  beforeAll(async () => {
    h = await startReviewHarness();
    await h.seedReviewer('alice@example.com', PASSWORD);
    alice = new ReviewerClient(h.url);
    expect((await alice.login('alice@example.com', PASSWORD)).status).toBe(201);
    const picture = generatePicture(42, 320, 240);
    await frame('original', await encodePicture(picture));
    await frame('elsewhere', await encodePicture(picture), 'sports');
    await frame('unrelated', await encodePicture(generatePicture(4242, 320, 240)));
    await frame('again', await rerender(picture, 0.6, 1.08));
  });
  afterAll(async () => h?.close());

  it('lists the original of a re-rendered, brighter frame with its distance; not the unrelated frame nor other channels', async () => {
    const { similar } = await detail('again');
    expect(similar).toHaveLength(1);
    const [match] = similar;
    expect(match).toMatchObject({
      id: ids['original'],
      title: 'original',
      status: 'needs_review',
      channel_slug: 'news',
    });
    expect(match!.distance).toBeGreaterThanOrEqual(0);
    expect(match!.distance).toBeLessThanOrEqual(h.deps.settings.NEAR_DUPLICATE_MAX_DISTANCE);
    expect(Date.parse(match!.created_at)).not.toBeNaN();

    // Earlier frames only: the original does not list its later copy; the unrelated frame lists nothing.
    expect((await detail('original')).similar).toEqual([]);
    expect((await detail('unrelated')).similar).toEqual([]);
  });

  it('counts near-duplicates per queue item', async () => {
    const res = await alice.call('GET', '/review/queue?channel=news');
    const { items } = (await res.json()) as { items: { id: string; similar_count: number }[] };
    const counts = Object.fromEntries(items.map((i) => [i.id, i.similar_count]));
    expect(counts).toEqual({ [ids['original']!]: 0, [ids['unrelated']!]: 0, [ids['again']!]: 1 });
  });

  it('rejects as a duplicate naming the earlier frame, recorded in the event; refuses a later or foreign one', async () => {
    const decide = (body: unknown) => alice.call('POST', `/review/submissions/${ids['again']}/decision`, body);
    const reason = 'Duplicate of an earlier frame';

    const missing = await decide({ decision: 'reject', reason });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { code: string }).code).toBe('validation_failed');
    for (const other of ['elsewhere', 'again']) {
      const res = await decide({ decision: 'reject', reason, duplicate_of: ids[other] });
      expect(res.status).toBe(422);
    }

    const res = await decide({ decision: 'reject', reason, duplicate_of: ids['original'] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; review: { reason: string } };
    expect(body.status).toBe('rejected');
    const events = await h.db.repos.submissions.events(ids['again']!);
    expect(events.at(-1)).toMatchObject({ toStatus: 'rejected', data: { duplicate_of: ids['original'] } });
  });
});
