// Abuse suite, the media door (issue 40, point 5): `Range: bytes=-1` of a large original reads one
// byte from storage, not the file; a reviewer flooding the media routes is held at
// MEDIA_RATE_LIMIT_PER_MINUTE while another reviewer and the agents carry on.
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { signMediaUrl } from '@framedesk/access';
import type { GetOptions } from '@framedesk/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from '../review-harness';
import { duringAbuse, expectHeld } from './abuse-support';
import { reportFigures } from './harness';

const LARGE = 2 * 1024 ** 3; // a 2 GiB original (a sparse file: no disk, but a read of it would take seconds)
const MEDIA_LIMIT = 40;

describe('abuse: Range reads of a large original', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let bob: ReviewerClient;
  let agentKey: string;
  let videoId: string;
  let imageId: string;
  /** Bytes each storage read delivered, in order. */
  const reads: { key: string; range: GetOptions['range']; bytes: number }[] = [];

  /** Puts a sparse file of `size` bytes, ending in 0xee, as a media object of `id`. */
  async function seedLarge(id: string, kind: 'original' | 'variant', name: string, contentType: string, size: number) {
    const bucket = h.deps.config.storage.vendor_originals_bucket;
    const key = `${kind}s/${id}/${name}`;
    await h.deps.storage.put(bucket, key, Buffer.from('x'), { contentType });
    const path = join(h.deps.settings.STORAGE_FS_ROOT, bucket, key);
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, 'r+');
    await file.truncate(size);
    await file.write(Buffer.from([0xee]), 0, 1, size - 1);
    await file.close();
    await h.db.repos.mediaObjects.upsert({ submissionId: id, kind, name, bucket, key, contentType, byteSize: size });
  }

  beforeAll(async () => {
    h = await startReviewHarness({ MEDIA_RATE_LIMIT_PER_MINUTE: String(MEDIA_LIMIT) });
    const get = h.deps.storage.get.bind(h.deps.storage);
    h.deps.storage.get = async (bucket: string, key: string, options?: GetOptions): Promise<Readable> => {
      const stream = await get(bucket, key, options);
      const read = { key, range: options?.range, bytes: 0 };
      reads.push(read);
      stream.on('data', (chunk: Buffer) => (read.bytes += chunk.length));
      return stream;
    };
    await h.seedReviewer('alice@example.com', 'correct horse battery');
    await h.seedReviewer('bob@example.com', 'correct horse battery');
    alice = new ReviewerClient(h.url);
    bob = new ReviewerClient(h.url);
    expect((await alice.login('alice@example.com', 'correct horse battery')).status).toBe(201);
    expect((await bob.login('bob@example.com', 'correct horse battery')).status).toBe(201);
    videoId = await h.seedSubmission({ mediaType: 'video', title: 'Large clip' });
    await seedLarge(videoId, 'original', 'original', 'video/mp4', LARGE);
    imageId = await h.seedSubmission({ title: 'Large public variant' });
    await seedLarge(imageId, 'variant', 'public', 'image/webp', 64 * 1024 ** 2);
    const agent = await h.db.repos.agents.create('bystander');
    const { channel } = await h.db.repos.channels.ensure('bystander-ch');
    await h.db.repos.agents.allowChannels(agent.id, [channel.id]);
    agentKey = (await h.deps.apiKeys.issue(agent.id)).key;
  }, 120_000);
  afterAll(() => h?.close());

  const bystander = async () => {
    const res = await fetch(`${h.url}/v1/frame-submissions?limit=1`, {
      headers: { authorization: `Bearer ${agentKey}` },
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`bystander agent got ${res.status}`);
  };

  it('answers `bytes=-1` of a 2 GiB original with 206 and one byte, reading one byte from storage', async () => {
    const { result, report } = await duringAbuse({ url: h.url, bystander }, async () => {
      reads.length = 0;
      const res = await alice.call('GET', `/review/submissions/${videoId}/original`, undefined, { range: 'bytes=-1' });
      const body = Buffer.from(await res.arrayBuffer());
      return { res, body };
    });
    reportFigures('abuse.range', { suffix_of_2_gib: { storage_bytes_read: reads[0]?.bytes, ...report } });
    expect(result.res.status).toBe(206);
    expect(result.res.headers.get('content-range')).toBe(`bytes ${LARGE - 1}-${LARGE - 1}/${LARGE}`);
    expect(result.res.headers.get('content-length')).toBe('1');
    expect([...result.body]).toEqual([0xee]);
    expect(reads).toEqual([
      { key: `originals/${videoId}/original`, range: { start: LARGE - 1, end: LARGE - 1 }, bytes: 1 },
    ]);
    expectHeld(report);
  });

  it('reads a signed variant link as a range too, and a middle range of the original', async () => {
    reads.length = 0;
    const link = signMediaUrl(
      h.deps.settings.SESSION_SECRET,
      { submissionId: imageId, name: 'public' },
      new Date(Date.now() + 600_000),
    );
    const res = await fetch(h.url + link, { headers: { range: 'bytes=-1' } });
    expect(res.status).toBe(206);
    expect([...Buffer.from(await res.arrayBuffer())]).toEqual([0xee]);
    const middle = await bob.call('GET', `/review/submissions/${videoId}/original`, undefined, {
      range: 'bytes=1000-1999',
    });
    expect(middle.status).toBe(206);
    expect(middle.headers.get('content-range')).toBe(`bytes 1000-1999/${LARGE}`);
    expect((await middle.arrayBuffer()).byteLength).toBe(1000);
    expect(reads.map((r) => r.bytes)).toEqual([1, 1000]);
  });

  it('holds one reviewer flooding the media routes at the limit, with 429 and Retry-After; others carry on', async () => {
    let bobRequests = 0;
    const { result, report } = await duringAbuse(
      {
        url: h.url,
        bystander: async () => {
          await bystander();
          if (bobRequests++ % 10 !== 0) return; // Bob watches a few seconds of video, under his own limit.
          const res = await bob.call('GET', `/review/submissions/${videoId}/original`, undefined, {
            range: 'bytes=0-9',
          });
          await res.arrayBuffer();
          if (res.status !== 206) throw new Error(`the other reviewer got ${res.status}`);
        },
      },
      async () => {
        const statuses: number[] = [];
        let retryAfter: string | null = null;
        for (let i = 0; i < 5 * MEDIA_LIMIT; i++) {
          const res = await alice.call('GET', `/review/submissions/${videoId}/original`, undefined, {
            range: 'bytes=-1',
          });
          await res.arrayBuffer();
          if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
          statuses.push(res.status);
        }
        return { statuses, retryAfter };
      },
    );
    const served = result.statuses.filter((s) => s === 206).length;
    reportFigures('abuse.range', { media_flood: { requests: 5 * MEDIA_LIMIT, served, ...report } });
    // The limit counts per minute of the clock: a flood across a minute's turn may get two minutes' worth.
    expect(served).toBeLessThanOrEqual(2 * MEDIA_LIMIT);
    expect(result.statuses.filter((s) => s !== 206 && s !== 429)).toEqual([]);
    expect(result.statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3 * MEDIA_LIMIT);
    expect(Number(result.retryAfter)).toBeGreaterThan(0);
    expectHeld(report);
  });
});
